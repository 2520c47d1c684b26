/**
 * Record mode end to end: `KEEN_RECORD=DIR keen run …` (the real bundle) leaves one recording per
 * request, which a fresh fake replays into the same answer on a second run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRecordings, replayOf } from '../fakes/recording.js';
import { FAKE_KEY, errorLines, useCliRig } from './cli-fixtures.js';

const { rig, workspace } = useCliRig();

describe('keen run with KEEN_RECORD', () => {
  it('records each request and its raw response without credentials, and the recording replays', async () => {
    const ws = workspace({ 'note.txt': 'the answer is 42\n' });
    const dir = path.join(ws.home, 'recordings');
    rig.fake.enqueue({ steps: [{ text: 'Reading.' }, { toolCall: { name: 'read_file', args: { path: 'note.txt' } } }] }, { steps: [{ text: 'It is 42.' }] });
    const live = await rig.keen(ws, ['run', 'what does note.txt say?'], { env: { KEEN_RECORD: dir } });
    expect(errorLines(live.stderr)).toEqual([]);
    expect(live.stdout).toBe('Reading.\nIt is 42.\n');

    const recordings = loadRecordings(dir);
    expect(recordings.map((r) => r.provider)).toEqual(['anthropic', 'anthropic']);
    expect(JSON.stringify(recordings[1].request)).toContain('the answer is 42');
    for (const file of fs.readdirSync(dir)) expect(fs.readFileSync(path.join(dir, file), 'utf8')).not.toContain(FAKE_KEY);

    rig.fake.enqueue(...recordings.map(replayOf));
    const replayed = await rig.keen(ws, ['run', 'what does note.txt say?']);
    expect(replayed.stdout).toBe(live.stdout);
  });
});
