import { describe, expect, it } from 'vitest';
import { heldBack, StreamScrubber } from '../../src/security/stream-scrubber.js';

const KEY = 'sk-ant-SECRET-1234567890';
const scrub = (t: string) => t.replaceAll(KEY, '[REDACTED]');

describe('StreamScrubber', () => {
  it('a credential split across pieces is never shown, in any split', () => {
    const text = `the key is ${KEY}, done`;
    for (let cut = 1; cut < text.length; cut++) {
      const s = new StreamScrubber(scrub, () => [KEY]);
      const shown = s.push(text.slice(0, cut)) + s.push(text.slice(cut)) + s.flush();
      expect(shown).toBe('the key is [REDACTED], done');
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
});
