import { chmod, lstat, mkdir, readFile, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import type { Restore } from './undo-plan.js';

/**
 * Put the files of `restores` back, all or none: every new content is staged next to its file
 * first; then the renames and removals run, and if one fails the files already changed get their
 * previous content back. `dir` is the checkpoints directory holding the blobs. Each `path` must
 * already be placed (`placeRestore`): its parents real and inside the workspace. A symlink at a
 * path is replaced or removed, never written through; a staged file is created exclusively.
 */
export async function applyRestores(dir: string, restores: readonly Restore[]): Promise<void> {
  const staged: { restore: Restore; tmp?: string }[] = [];
  try {
    for (const r of restores) {
      if (!r.before) {
        staged.push({ restore: r });
        continue;
      }
      const content = await readFile(join(dir, String(r.turnSeq), r.before.blob));
      await mkdir(dirname(r.path), { recursive: true });
      const tmp = `${r.path}.keen-undo-${process.pid}.tmp`;
      await rm(tmp, { force: true });
      await writeFile(tmp, content, { mode: r.before.mode, flag: 'wx' });
      await chmod(tmp, r.before.mode);
      staged.push({ restore: r, tmp });
    }
  } catch (err) {
    await Promise.all(staged.map((s) => (s.tmp ? rm(s.tmp, { force: true }) : undefined)));
    throw err;
  }
  // What the files hold now, to roll back to if a later step fails.
  const previous = new Map<string, { data: Buffer; mode: number } | { link: string } | null>();
  for (const { restore } of staged) {
    const info = await lstat(restore.path).catch(() => null);
    if (info?.isSymbolicLink()) previous.set(restore.path, { link: await readlink(restore.path) });
    else previous.set(restore.path, info?.isFile() ? { data: await readFile(restore.path), mode: info.mode & 0o7777 } : null);
  }
  const done: string[] = [];
  try {
    for (const s of staged) {
      if (s.tmp) await rename(s.tmp, s.restore.path);
      else await rm(s.restore.path, { force: true });
      done.push(s.restore.path);
    }
  } catch (err) {
    for (const p of done) {
      const prev = previous.get(p);
      await rm(p, { force: true }).catch(() => undefined);
      if (prev && 'link' in prev) await symlink(prev.link, p).catch(() => undefined);
      else if (prev) await writeFile(p, prev.data, { mode: prev.mode, flag: 'wx' }).catch(() => undefined);
    }
    await Promise.all(staged.map((s) => (s.tmp ? rm(s.tmp, { force: true }) : undefined)));
    throw err;
  }
}
