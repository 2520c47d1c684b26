import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyRestores } from '../../src/undo/apply-undo.js';
import { placeRestore } from '../../src/undo/confine.js';
import { FileCheckpoints, listManifests } from '../../src/undo/file-checkpoints.js';
import { planUndo } from '../../src/undo/undo-plan.js';
import { tempDir } from '../kit/temp-dir.js';

describe('undo planning and restoring', () => {
  it('is all or nothing: when one file cannot be staged, no file changes', async () => {
    const ws = tempDir('keen-undo-');
    const cp = new FileCheckpoints(path.join(ws, '.cp'));
    const a = path.join(ws, 'a.txt');
    const b = path.join(ws, 'sub', 'b.txt');
    await writeFile(a, 'a0');
    await mkdir(path.dirname(b));
    await writeFile(b, 'b0');
    cp.beginTurn(2);
    for (const p of [a, b]) await cp.before(p);
    await writeFile(a, 'a1');
    await writeFile(b, 'b1');
    for (const p of [a, b]) await cp.after(p);
    // b's directory is replaced by a file: restoring b cannot even be staged.
    await rm(path.dirname(b), { recursive: true });
    await writeFile(path.dirname(b), 'now a file');
    const [manifest] = await listManifests(path.join(ws, '.cp'));
    const plan = planUndo(
      [manifest],
      new Map([
        [a, 'x'],
        [b, null],
      ]),
      new Map([
        [a, 'h0'],
        [b, 'h0'],
      ]),
    );
    expect(plan.restores.map((r) => r.path)).toEqual([a, b]);
    await expect(applyRestores(path.join(ws, '.cp'), plan.restores)).rejects.toThrow();
    expect(await readFile(a, 'utf8')).toBe('a1');
  });

  it('a file back to its state before the earliest turn is left alone; a changed one conflicts', () => {
    const m = (turn_seq: number, after: string | null) => ({ turn_seq, files: [{ path: '/w/a', before: { blob: '1.bin', mode: 0o644 }, after }] });
    expect(planUndo([m(2, 'h1'), m(4, 'h2')], new Map([['/w/a', 'h2']]), new Map([['/w/a', 'h0']]))).toEqual({
      turns: [2, 4],
      restores: [{ path: '/w/a', turnSeq: 2, before: { blob: '1.bin', mode: 0o644 } }],
      conflicts: [],
    });
    expect(planUndo([m(2, 'h1')], new Map([['/w/a', 'h0']]), new Map([['/w/a', 'h0']])).restores).toEqual([]);
    expect(planUndo([m(2, 'h1')], new Map([['/w/a', 'other']]), new Map([['/w/a', 'h0']])).conflicts).toEqual(['/w/a']);
  });

  it('places a restore at its real parent, inside one of the roots or not at all', async () => {
    const ws = tempDir('keen-undo-');
    const out = tempDir('keen-undo-');
    const extra = tempDir('keen-undo-');
    await mkdir(path.join(ws, 'real'));
    await symlink(path.join(ws, 'real'), path.join(ws, 'inner'));
    await symlink(out, path.join(ws, 'away'));
    expect(await placeRestore(path.join(ws, 'inner', 'a.txt'), [ws])).toEqual({ path: path.join(ws, 'inner', 'a.txt'), target: path.join(ws, 'real', 'a.txt') });
    expect(await placeRestore(path.join(ws, 'gone', 'deep', 'b.txt'), [ws])).toEqual({
      path: path.join(ws, 'gone', 'deep', 'b.txt'),
      target: path.join(ws, 'gone', 'deep', 'b.txt'),
    });
    expect(await placeRestore(path.join(ws, 'away', 'c.txt'), [ws])).toEqual({ path: path.join(ws, 'away', 'c.txt'), outside: path.join(out, 'c.txt') });
    expect(await placeRestore(path.join(extra, 'd.txt'), [ws])).toMatchObject({ outside: path.join(extra, 'd.txt') });
    expect(await placeRestore(path.join(extra, 'd.txt'), [ws, extra])).toMatchObject({ target: path.join(extra, 'd.txt') });
    // The leaf itself is not followed: a link named like the file is where the restore goes.
    await symlink(path.join(out, 'e.txt'), path.join(ws, 'e.txt'));
    expect(await placeRestore(path.join(ws, 'e.txt'), [ws])).toMatchObject({ target: path.join(ws, 'e.txt') });
  });
});
