import fs from 'node:fs';
import path from 'node:path';

/** Who Keen runs as: files and folders of this account (or of root) are its own. */
export interface Account {
  uid: number;
  gid: number;
}

let account: Account | null | undefined;

/** This process's account (asked once); undefined where the platform has no uids (Windows: no owner check). */
export function currentAccount(): Account | undefined {
  account ??= typeof process.getuid === 'function' && typeof process.getgid === 'function' ? { uid: process.getuid(), gid: process.getgid() } : null;
  return account ?? undefined;
}

/**
 * Why a file or folder is not this account's to trust, or undefined when it is: owned by another
 * account (root counts as an owner too), or writable by other accounts — every account
 * (other-writable, e.g. a 1777 /tmp), or a group other than the account's own primary group (a
 * user-private group under umask 002 is the account itself). The same idea as git's "dubious
 * ownership", applied to every context file and folder. A pure function of the stat and the
 * account (this process's when absent; null: a platform without uids).
 */
export function ownershipProblem(st: Pick<fs.Stats, 'uid' | 'gid' | 'mode'>, who?: Account | null): string | undefined {
  const me = who === undefined ? currentAccount() : who;
  if (!me) return undefined;
  if (st.uid !== me.uid && st.uid !== 0) return `owned by another user (uid ${st.uid})`;
  if (st.mode & 0o002) return 'writable by every user';
  if (st.mode & 0o020 && st.gid !== me.gid) return `writable by group ${st.gid}`;
  return undefined;
}

/** Why folder `dir` is not trusted (see {@link ownershipProblem}); undefined when it is. A missing folder is "missing". */
export function dirProblem(dir: string): string | undefined {
  let st: fs.Stats | undefined;
  try {
    // No throw for the common case, a folder that does not exist.
    st = fs.statSync(dir, { throwIfNoEntry: false });
  } catch {
    st = undefined;
  }
  if (!st) return 'missing';
  if (!st.isDirectory()) return 'not a folder';
  return ownershipProblem(st);
}

/** True when `p` is `root` or below it (both absolute and normalised). */
export function isWithin(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** `p`'s real path, or undefined when it does not resolve. */
export function realPath(p: string): string | undefined {
  try {
    return fs.realpathSync.native(p);
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
export function openedRealPath(fd: number, file: string, st: Pick<fs.Stats, 'dev' | 'ino'>): string | undefined {
  try {
    const name = fs.readlinkSync(`/proc/self/fd/${fd}`);
    if (path.isAbsolute(name) && !name.endsWith(' (deleted)')) return name;
  } catch {
    // no /proc: fall back to the name, checked against the descriptor
  }
  const real = realPath(file);
  if (!real) return undefined;
  try {
    const now = fs.statSync(real);
    return now.dev === st.dev && now.ino === st.ino ? real : undefined;
  } catch {
    return undefined;
  }
}
