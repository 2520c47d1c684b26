/**
 * A resumed session replays a manual compaction as the user saw it: the summary as markdown,
 * without the `<compacted_context>` wrapper or the artifact index meant for the model, and one
 * muted line saying how many earlier tool outputs stay recallable.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TRANSCRIPT_FILE } from '../../src/transcript/paths.js';
import type { RecordedRequest } from '../fakes/script.js';
import { afterToolResult, isCompactionRequest, lastUserText } from './fake-requests.js';
import { startHarness, type ReplHarness } from './harness.js';

let h: ReplHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const SUMMARY = '## Goal\nRead the notes.\n## Accomplished\nnotes.txt read.';
const notes = Array.from({ length: 200 }, (_, k) => `note ${k}: keep this line around for a while`).join('\n');

function responder(req: RecordedRequest) {
  if (isCompactionRequest(req)) return { steps: [{ text: SUMMARY }] };
  if (afterToolResult(req)) return { steps: [{ text: 'Read it.' }] };
  if (lastUserText(req) === 'read the notes') return { steps: [{ toolCall: { name: 'read_file', args: { path: 'notes.txt' } } }] };
  return { steps: [{ text: `answer to ${lastUserText(req)}` }] };
}

describe('replay of a compaction', () => {
  it('shows the summary without its wrapper or artifact index, and one muted line for the artifacts', async () => {
    h = await startHarness({ files: { 'notes.txt': notes }, responder });
    h.send('read the notes');
    await h.waitFor('Read it.');
    h.send('and then?');
    await h.waitFor('answer to and then?');
    h.send('/compact');
    await h.waitFor('✓ Context compacted.');
    const id = h.runtime.session!.sessionId;
    const ws = h.ws;
    await h.close({ dispose: false });

    h = await startHarness({ workspace: ws, flags: { session: id }, responder });
    const frame = await h.waitFor('Resumed session');
    expect(frame).toContain('● Goal\n  Read the notes.');
    expect(frame).toContain('notes.txt read.');
    expect(frame).toContain('· 1 earlier tool output is stored; the model can recall it');
    for (const hidden of ['compacted_context', 'artifact_index', 'artifact#', 'recall tool']) expect(frame).not.toContain(hidden);
    // The session opens from its last compaction (fast), yet the replay still shows what came before it.
    expect(h.runtime.session!.records[0].kind).not.toBe('session_started');
    expect(frame).toContain('answer to and then?');
    // …and /context still lists the compaction the session made before it was resumed.
    h.send('/context');
    await h.waitFor('Compactions (1):');
  });

  it('a damaged line before the last compaction: the replay skips it and says so; the rest is shown', async () => {
    h = await startHarness({ responder });
    h.send('first question');
    await h.waitFor('answer to first question');
    h.send('second question');
    await h.waitFor('answer to second question');
    h.send('/compact');
    await h.waitFor('✓ Context compacted.');
    h.send('after the compaction');
    await h.waitFor('answer to after the compaction');
    const id = h.runtime.session!.sessionId;
    const ws = h.ws;
    await h.close({ dispose: false });

    const transcript = findTranscript(ws.home, id);
    const lines = fs.readFileSync(transcript, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes('"first question"'));
    lines[at] = `${lines[at].slice(0, 30)} garbled`;
    fs.writeFileSync(transcript, lines.join('\n'));

    h = await startHarness({ workspace: ws, flags: { session: id }, responder });
    const frame = await h.waitFor('Resumed session');
    // (The harness shows the session id as <id> and wraps at the terminal width.)
    expect(frame.replace(/\n/g, ' ')).toContain('session <id>: 1 damaged line before the last compaction was skipped in the replay');
    expect(frame).not.toContain('› first question');
    expect(frame).toContain('answer to first question');
    expect(frame).toContain('answer to second question');
    expect(frame).toContain('answer to after the compaction');
  });
});

function findTranscript(dir: string, id: string): string {
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name === TRANSCRIPT_FILE && entry.parentPath.endsWith(id)) return path.join(entry.parentPath, entry.name);
  }
  throw new Error(`no transcript for ${id}`);
}
