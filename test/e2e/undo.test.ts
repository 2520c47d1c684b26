/**
 * `keen undo` end to end: spawned `keen run --yolo` turns edit and create files, then `keen undo`
 * restores them byte for byte, turn by turn, and refuses when a file changed behind Keen's back.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorLines, filesUnder, storedSessionId, useCliRig } from './cli-fixtures.js';
import type { Workspace } from '../kit/temp-dir.js';

const { rig, workspace } = useCliRig();

const ORIGINAL = 'line one\r\nünïcödé ✓\n\tno newline at end';

async function turn(ws: Workspace, calls: { name: string; args: unknown }[], extra: string[] = []): Promise<string> {
  rig.fake.enqueue({ steps: calls.map((c) => ({ toolCall: c })) }, { steps: [{ text: 'done' }] });
  const r = await rig.keen(ws, ['run', '--yolo', ...extra, 'change things']);
  expect(r.code).toBe(0);
  return storedSessionId(ws.home)!;
}

const read = (ws: Workspace, rel: string) => fs.readFileSync(path.join(ws.cwd, rel), 'utf8');

describe('keen undo', () => {
  it('restores edited and created files byte for byte, one turn at a time, and records each undo', async () => {
    const ws = workspace({ 'a.txt': ORIGINAL });
    const id = await turn(ws, [
      { name: 'edit_file', args: { path: 'a.txt', old_string: 'line one', new_string: 'LINE ONE' } },
      { name: 'write_file', args: { path: 'src/new.txt', content: 'created\n' } },
      { name: 'edit_file', args: { path: 'a.txt', old_string: 'LINE ONE', new_string: 'LINE 1' } },
    ]);
    await turn(ws, [{ name: 'write_file', args: { path: 'a.txt', content: 'replaced entirely\n' } }], ['--session', id]);
    expect(read(ws, 'a.txt')).toBe('replaced entirely\n');

    const first = await rig.keen(ws, ['undo']);
    expect(errorLines(first.stderr)).toEqual([]);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('Undid the file changes of 1 turn: restored a.txt.\n');
    expect(read(ws, 'a.txt')).toBe(ORIGINAL.replace('line one', 'LINE 1'));

    const second = await rig.keen(ws, ['undo', '--session', id]);
    expect(second.stdout).toBe('Undid the file changes of 1 turn: restored a.txt; removed src/new.txt (created by Keen).\n');
    expect(fs.readFileSync(path.join(ws.cwd, 'a.txt'))).toEqual(Buffer.from(ORIGINAL));
    expect(fs.existsSync(path.join(ws.cwd, 'src/new.txt'))).toBe(false);

    const nothing = await rig.keen(ws, ['undo']);
    expect(nothing.code).toBe(1);
    expect(errorLines(nothing.stderr)).toEqual(['keen: nothing to undo: no earlier turn of this session changed files']);

    const transcript = filesUnder(ws.home).find((f) => f.endsWith('transcript_events.jsonl'))!;
    const undos = fs
      .readFileSync(transcript, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((r) => r.kind === 'undo');
    expect(undos).toHaveLength(2);
    expect(undos[1].files.map((f: string) => path.basename(f)).sort()).toEqual(['a.txt', 'new.txt']);
  });

  it('restores files a bash command changed, created or removed, detected by a before/after scan', async () => {
    const ws = workspace({ 'a.txt': 'a0\n', 'c.txt': 'c0\n', 'w.txt': 'w0\n' });
    await turn(ws, [
      { name: 'write_file', args: { path: 'w.txt', content: 'w1\n' } },
      { name: 'bash', args: { command: 'echo a1 > a.txt && echo b1 > b.txt && rm c.txt && echo w2 >> w.txt' } },
    ]);
    expect(read(ws, 'w.txt')).toBe('w1\nw2\n');
    const r = await rig.keen(ws, ['undo']);
    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.code).toBe(0);
    expect(read(ws, 'a.txt')).toBe('a0\n');
    expect(read(ws, 'c.txt')).toBe('c0\n');
    expect(read(ws, 'w.txt')).toBe('w0\n');
    expect(fs.existsSync(path.join(ws.cwd, 'b.txt'))).toBe(false);
  });

  it('--turns 2 undoes two turns at once', async () => {
    const ws = workspace({ 'a.txt': 'v0\n' });
    const id = await turn(ws, [{ name: 'write_file', args: { path: 'a.txt', content: 'v1\n' } }]);
    await turn(ws, [{ name: 'write_file', args: { path: 'a.txt', content: 'v2\n' } }], ['--session', id]);
    const r = await rig.keen(ws, ['undo', '--turns', '2']);
    expect(r.stdout).toBe('Undid the file changes of 2 turns: restored a.txt.\n');
    expect(read(ws, 'a.txt')).toBe('v0\n');
  });

  it("refuses, changing nothing, when a file changed behind Keen's back; --force overrides", async () => {
    const ws = workspace({ 'a.txt': 'a0\n', 'b.txt': 'b0\n' });
    await turn(ws, [
      { name: 'write_file', args: { path: 'a.txt', content: 'a1\n' } },
      { name: 'write_file', args: { path: 'b.txt', content: 'b1\n' } },
    ]);
    fs.writeFileSync(path.join(ws.cwd, 'b.txt'), 'edited by the user\n');
    const refused = await rig.keen(ws, ['undo']);
    expect(refused.code).toBe(1);
    expect(errorLines(refused.stderr)).toEqual(['keen: refusing to undo: b.txt changed outside Keen since Keen wrote it; nothing was changed (use --force to overwrite)']);
    expect(read(ws, 'a.txt')).toBe('a1\n');
    expect(read(ws, 'b.txt')).toBe('edited by the user\n');

    const forced = await rig.keen(ws, ['undo', '--force']);
    expect(forced.code).toBe(0);
    expect(read(ws, 'a.txt')).toBe('a0\n');
    expect(read(ws, 'b.txt')).toBe('b0\n');
  });

  it('works without git and never touches a git index', async () => {
    const ws = workspace({ 'a.txt': 'x\n' });
    await turn(ws, [{ name: 'write_file', args: { path: 'a.txt', content: 'y\n' } }]);
    expect(fs.existsSync(path.join(ws.cwd, '.git'))).toBe(false);
    expect((await rig.keen(ws, ['undo'])).code).toBe(0);
    expect(read(ws, 'a.txt')).toBe('x\n');
    expect(fs.existsSync(path.join(ws.cwd, '.git'))).toBe(false);
  });

  it('a bad --turns value or an unknown session is one line', async () => {
    const ws = workspace();
    expect(errorLines((await rig.keen(ws, ['undo', '--turns', 'two'])).stderr)).toEqual(['keen: --turns must be a whole number of turns, 1 or more (got "two")']);
    expect(errorLines((await rig.keen(ws, ['undo'])).stderr)).toEqual(['keen: no session to undo in this directory; pass --session ID (`keen sessions` lists them)']);
  });
});
