/** A damaged seq in the middle of a transcript: the resumed request still carries every turn. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorLines, filesUnder, storedSessionId, useCliRig, userTexts } from './cli-fixtures.js';

const { rig, workspace } = useCliRig();

describe('a record whose seq was raised', () => {
  it('keen run --session: one warning line, and the request holds all earlier turns', async () => {
    const ws = workspace();
    rig.fake.enqueue({ steps: [{ text: 'First answer.' }] });
    const first = await rig.keen(ws, ['run', 'first question']);
    const id = storedSessionId(ws.home)!;
    for (const q of ['second question', 'third question']) {
      rig.fake.enqueue({ steps: [{ text: `Answer to ${q}.` }] });
      expect((await rig.keen(ws, ['run', '--session', id, q])).code).toBe(0);
    }
    const transcript = filesUnder(path.join(ws.home, 'sessions')).find((f) => f.endsWith('transcript_events.jsonl'))!;
    const text = fs.readFileSync(transcript, 'utf8');
    expect(text).toContain('{"seq":4,');
    fs.writeFileSync(transcript, text.replace('{"seq":4,', '{"seq":40,'));

    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'Fourth answer.' }] });
    const r = await rig.keen(ws, ['run', '--session', id, 'fourth question']);
    expect(r.code).toBe(0);
    const lines = errorLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('seq 40 out of order');
    expect(userTexts(rig.since(from)[0])).toEqual(['first question', 'second question', 'third question', 'fourth question']);
    expect(fs.existsSync(`${transcript}.corrupt`)).toBe(false);
  });
});
