/**
 * The model's streamed answer never shows a credential Keen sends, even split across deltas: the
 * fake streams Keen's own API key (the one in its environment, in no known token format) cut into
 * pieces, and `keen -p` text and stream-json output show `[REDACTED]` whole, with no piece
 * of the key in any write; the transcript keeps the answer redacted (docs/security.md). Needs
 * `npm run build` first.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder, useCliRig } from './cli-fixtures.js';

const { rig, workspace } = useCliRig();

/** Keen's key for these runs: no `sk-` shape, so only the known-value scrubbing can catch it. */
const KEY = 'Qz7w-Split-Xv93-5d81c0ffee42';
const SHOWN = 'The key is [REDACTED] — done.';

/** The answer in three text blocks of three deltas each (the fake splits a block in three). */
function splitAnswer() {
  return { steps: [{ text: `The key is ${KEY.slice(0, 9)}` }, { text: KEY.slice(9, 20) }, { text: `${KEY.slice(20)} — done.` }] };
}

/** Every 8-character piece of the key: none may be in any output. */
function pieces(secret: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 8 <= secret.length; i++) out.push(secret.slice(i, i + 8));
  return out;
}

function transcriptsOf(home: string): string {
  return filesUnder(path.join(home, 'sessions'))
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => fs.readFileSync(f, 'utf8'))
    .join('\n');
}

describe('a credential split across streamed deltas', () => {
  it('keen -p text: stdout shows [REDACTED] whole; the transcript keeps it redacted', async () => {
    const ws = workspace();
    rig.fake.enqueue(splitAnswer());
    const r = await rig.keen(ws, ['-p', 'what is the key?'], { env: { ANTHROPIC_API_KEY: KEY } });
    expect(r.code).toBe(0);
    // The key streamed is the one Keen sent.
    expect(Object.values(rig.fake.requests.at(-1)?.headers ?? {}).join(' ')).toContain(KEY);
    expect(r.stdout).toBe(`${SHOWN}\n`);
    for (const p of pieces(KEY)) expect(r.stdout + r.stderr).not.toContain(p);
    const transcript = transcriptsOf(ws.home);
    expect(transcript).toContain(SHOWN);
    expect(transcript).not.toContain(KEY);
  });

  it('stream-json: no text_delta line holds a piece of the key; the deltas add up to the redacted answer', async () => {
    const ws = workspace();
    rig.fake.enqueue(splitAnswer());
    const r = await rig.keen(ws, ['-p', '--output-format', 'stream-json', 'what is the key?'], { env: { ANTHROPIC_API_KEY: KEY } });
    expect(r.code).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const deltas = events.filter((e) => e.type === 'text_delta').map((e) => e.text as string);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(SHOWN);
    expect(events.find((e) => e.type === 'assistant').text).toBe(SHOWN);
    expect(events.at(-1)).toMatchObject({ type: 'result', result: SHOWN });
    for (const p of pieces(KEY)) expect(r.stdout + r.stderr).not.toContain(p);
  });
});
