import { type Stats, statSync, realpathSync, readlinkSync } from 'node:fs';
import { relative, isAbsolute } from 'node:path';
import { ownershipProblem } from '../security/file-owner.js';

export { type Account, ownershipProblem } from '../security/file-owner.js';

/** Why folder `dir` is not trusted (see {@link ownershipProblem}); undefined when it is. A missing folder is "missing". */
export function dirProblem(dir: string): string | undefined {
  let st: Stats | undefined;
  try {
    // No throw for the common case, a folder that does not exist.
    st = statSync(dir, { throwIfNoEntry: false });
  } catch {
    st = undefined;
  }
  if (!st) return 'missing';
  if (!st.isDirectory()) return 'not a folder';
  return ownershipProblem(st);
}

/** True when `p` is `root` or below it (both absolute and normalised). */
export function isWithin(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** `p`'s real path, or undefined when it does not resolve. */
export function realPath(p: string): string | undefined {
  try {
    return realpathSync.native(p);
  } catch {
    return undefined;
  }
}

/**
 * The real path of the file open on `fd` (opened as `file`): the kernel's name for the
 * descriptor where there is one (/proc), so a swap of `file` after the open cannot change the
 * answer; elsewhere `file`'s real path, accepted only when it is still the opened file (same
 * device and inode). Undefined when neither can tell.
 */
export function openedRealPath(fd: number, file: string, st: Pick<Stats, 'dev' | 'ino'>): string | undefined {
  try {
    const name = readlinkSync(`/proc/self/fd/${fd}`);
    if (isAbsolute(name) && !name.endsWith(' (deleted)')) return name;
  } catch {
    // no /proc: fall back to the name, checked against the descriptor
  }
  const real = realPath(file);
  if (!real) return undefined;
  try {
    const now = statSync(real);
    return now.dev === st.dev && now.ino === st.ino ? real : undefined;
  } catch {
    return undefined;
  }
}
