import { afterEach, describe, expect, it } from 'vitest';
import { addCredentials, clearCredentials, knownCredentialForms, scrubText } from '../../src/security/scrubber.js';
import { formatHold, heldBack, HOLD_WORD_CHARS, StreamScrubber } from '../../src/security/stream-scrubber.js';

const KEY = 'sk-ant-SECRET-1234567890';
const scrub = (t: string) => t.replaceAll(KEY, '[REDACTED]');

afterEach(() => clearCredentials());

/** `text` pushed in two pieces cut at `cut` (and in `parts` roughly equal pieces), as a reader sees it. */
function streamed(s: StreamScrubber, pieces: string[]): { shown: string[]; all: string } {
  const shown = pieces.map((p) => s.push(p));
  shown.push(s.flush());
  return { shown, all: shown.join('') };
}

/** Every cut of `text` into two pieces and into pieces of `size`. */
function splits(text: string, size = 3): string[][] {
  const out: string[][] = [];
  for (let cut = 1; cut < text.length; cut++) out.push([text.slice(0, cut), text.slice(cut)]);
  const small: string[] = [];
  for (let i = 0; i < text.length; i += size) small.push(text.slice(i, i + size));
  out.push(small);
  return out;
}

describe('StreamScrubber', () => {
  it('a credential split across pieces is never shown, in any split', () => {
    const text = `the key is ${KEY}, done`;
    for (const pieces of splits(text)) {
      const s = new StreamScrubber(scrub, () => [KEY]);
      expect(streamed(s, pieces).all).toBe('the key is [REDACTED], done');
    }
  });

  it('holds back only what could begin a credential, and flush gives it out', () => {
    const s = new StreamScrubber(scrub, () => [KEY]);
    expect(s.push('plain text ')).toBe('plain text ');
    expect(s.push('and sk-an')).toBe('and ');
    expect(s.flush()).toBe('sk-an');
    expect(heldBack('xyz', [KEY])).toBe(0);
    expect(heldBack('abc sk', [KEY])).toBe(2);
  });

  it('a registered value of no known format, in every spelling the scrubber knows, split anywhere', () => {
    const secret = 'plain/Secret+value="9"';
    addCredentials([secret]);
    for (const spelling of [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)]) {
      const text = `echo ${spelling} end`;
      for (const pieces of splits(text, 4)) {
        const { shown, all } = streamed(new StreamScrubber((t) => scrubText(t), knownCredentialForms), pieces);
        expect(all).toBe('echo [REDACTED] end');
        for (const piece of shown) expect(piece).not.toContain(spelling.slice(0, 8));
      }
    }
  });

  it('a value in a known format that Keen does not know is never redacted in part with its rest shown', () => {
    // The format matches once 16 characters follow `sk-`: redacting a piece alone would show the tail.
    const token = 'sk-proj-UnknownToken0123456789abcdef';
    const bearer = 'Bearer abcdefghijklmnop0123';
    const url = 'https://user:hunter2secret@example.com/x?key=topsecretvalue1';
    for (const text of [`key ${token} here`, `header ${bearer} sent`, `see ${url} now`]) {
      for (const pieces of splits(text, 5)) {
        const all = streamed(new StreamScrubber((t) => scrubText(t), knownCredentialForms), pieces).all;
        expect(all).toBe(scrubText(text));
        expect(all).not.toMatch(/0123|hunter2|topsecret/);
      }
    }
  });

  it('ordinary prose streams without delay but for a word that could start a token', () => {
    const s = new StreamScrubber((t) => scrubText(t), knownCredentialForms);
    expect(s.push('Hello there, this is ')).toBe('Hello there, this is ');
    expect(s.push('the answer')).toBe('the answer');
    expect(formatHold('look at sk')).toBe(2);
    expect(formatHold('a task')).toBe(0);
    expect(formatHold('send Bearer ')).toBe('Bearer '.length);
    expect(formatHold(`x ${'A'.repeat(HOLD_WORD_CHARS)}eyJ`)).toBe(0);
  });
});
