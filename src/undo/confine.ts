import { lstat, realpath } from 'node:fs/promises';
import { relative, isAbsolute, join, dirname, basename } from 'node:path';
import { realDir } from '../tools/fs-guard.js';

/** Where an undo writes or removes a file, or why it must not. */
export type Placement = { path: string; target: string } | { path: string; outside: string };

/** True when `p` is `root` or below it (both absolute, normalised). */
function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Where an undo of `p` (a path a checkpoint recorded) lands now: every parent resolved to its
 * real path, the leaf itself not followed (a symlink there is replaced or removed, never written
 * through). `outside` when that place is outside every real root: a directory on the way was
 * swapped for a symlink leading out since Keen recorded the file.
 */
export async function placeRestore(p: string, realRoots: readonly string[]): Promise<Placement> {
  const target = join(await realDir(dirname(p)), basename(p));
  if (!realRoots.some((root) => inside(root, target) && root !== target)) return { path: p, outside: target };
  return { path: p, target };
}

/** The real paths of `roots` (a missing one as given). */
export async function realRoots(roots: readonly string[]): Promise<string[]> {
  return [...new Set(await Promise.all(roots.map((r) => realpath(r).catch(() => r))))];
}

/** Whether the leaf at `target` is a symlink (an undo replaces it, never follows it). */
export async function isLink(target: string): Promise<boolean> {
  return (await lstat(target).catch(() => null))?.isSymbolicLink() ?? false;
}
