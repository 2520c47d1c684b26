import type fs from 'node:fs';

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
