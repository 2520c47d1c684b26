/**
 * The REPL screen never shows a credential Keen sends, even when the model streams it split across
 * deltas: the fake streams Keen's own API key in pieces, the screen shows `[REDACTED]` whole and no
 * piece of the key, and the transcript keeps the answer redacted. Needs `npm run build` first.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder } from '../e2e/cli-fixtures.js';
import { useTmuxRig } from './tmux.js';

const rig = useTmuxRig();

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
    const transcript = filesUnder(path.join(rig.ws.home, 'sessions'))
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => fs.readFileSync(f, 'utf8'))
      .join('\n');
    expect(transcript).toContain('The key is [REDACTED] and that is all.');
    expect(transcript).not.toContain(KEY);
  });
});
