/**
 * The REPL screen never shows a credential Keen sends, even when the model streams it split across
 * deltas: the fake streams Keen's own API key in pieces, the screen shows `[REDACTED]` whole and no
 * piece of the key, and the transcript keeps the answer redacted; a tool card (the call's arguments,
 * its output) shows no piece of it either. Needs `npm run build` first.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder } from '../e2e/cli-fixtures.js';
import { useTmuxRig } from './tmux.js';

const rig = useTmuxRig();

function transcripts(): string {
  return filesUnder(path.join(rig.ws.home, 'sessions'))
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => fs.readFileSync(f, 'utf8'))
    .join('\n');
}

/** The session's transcripts once they hold `text` (polled against a deadline, like the screen). */
async function transcriptWith(text: string, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const all = transcripts();
    if (all.includes(text) || Date.now() > deadline) return all;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Keen's key for this run, in no known token format (only the known-value scrubbing catches it). */
const KEY = 'Qz7w-Repl-Xv93-0c1d2e3f4a5b';

describe('the REPL screen and a credential split across deltas', () => {
  it('shows [REDACTED] whole, never a piece of the key', async () => {
    rig.fake.enqueue({ steps: [{ text: `The key is ${KEY.slice(0, 7)}` }, { text: KEY.slice(7, 18) }, { text: `${KEY.slice(18)} and that is all.` }] });
    const t = rig.start({ env: { ANTHROPIC_API_KEY: KEY } });
    await t.waitFor('Type a message');
    t.type('what is the key?');
    const screen = await t.waitFor('and that is all.');
    expect(screen).toContain('The key is [REDACTED] and that is all.');
    for (let i = 0; i + 6 <= KEY.length; i++) expect(screen).not.toContain(KEY.slice(i, i + 6));
    // The record is written when the message ends, just after its last delta is on screen.
    const transcript = await transcriptWith('and that is all.');
    expect(transcript).toContain('The key is [REDACTED] and that is all.');
    expect(transcript).not.toContain(KEY);
  });

  it('a tool card shows neither the call nor the output with the key in it', async () => {
    fs.writeFileSync(path.join(rig.ws.cwd, 'notes.txt'), `deploy token: ${KEY}\n`);
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'grep', args: { pattern: KEY, path: '.' } } }] }, { steps: [{ text: 'Found it.' }] });
    const t = rig.start({ env: { ANTHROPIC_API_KEY: KEY } });
    await t.waitFor('Type a message');
    t.type('find the token');
    const screen = await t.waitFor('Found it.');
    expect(screen).toContain('deploy token: [REDACTED]');
    for (let i = 0; i + 6 <= KEY.length; i++) expect(screen).not.toContain(KEY.slice(i, i + 6));
  });
});
