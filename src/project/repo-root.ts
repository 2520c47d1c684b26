import { lstatSync } from 'node:fs';
import { resolve, join, dirname } from 'node:path';
import { dirProblem, ownershipProblem } from './file-trust.js';

/** The folders a project is read from, found by walking up from `cwd`. */
export interface ProjectWalk {
  /**
   * Trusted folders from `cwd` upward, nearest first: up to the repository root (inclusive) or,
   * outside a repository, the filesystem root. The walk stops below the first folder that is
   * not this account's (another owner, or writable by others: a 1777 /tmp); `cwd` itself is left
   * out when it is such a folder.
   */
  dirs: string[];
  /** The nearest folder holding a `.git` of this account; `cwd` when there is none. */
  root: string;
  /** Whether `root` holds `.git`. */
  repo: boolean;
  /** Why `cwd` itself was left out, when it was. */
  cwdProblem?: string;
}

/** Walks up from `cwd` (see {@link ProjectWalk}): one stat per folder, one lstat per `.git` seen. */
export function walkProject(cwd: string): ProjectWalk {
  const start = resolve(cwd);
  const dirs: string[] = [];
  for (let dir = start; ; ) {
    const problem = dirProblem(dir);
    if (problem) return { dirs, root: start, repo: false, cwdProblem: dir === start ? problem : undefined };
    dirs.push(dir);
    if (ownGit(join(dir, '.git'))) return { dirs, root: dir, repo: true };
    const parent = dirname(dir);
    if (parent === dir) return { dirs, root: start, repo: false };
    dir = parent;
  }
}

/** A `.git` folder (or the file a worktree or submodule has) that this account owns. */
function ownGit(p: string): boolean {
  try {
    return !ownershipProblem(lstatSync(p));
  } catch {
    return false;
  }
}

/** A walk already made (one per context read), or the cwd to walk from. */
export type WalkFrom = string | ProjectWalk;

export function asWalk(from: WalkFrom): ProjectWalk {
  return typeof from === 'string' ? walkProject(from) : from;
}

/**
 * The repository root: the nearest directory at or above `cwd` holding `.git` (a folder, or the
 * file a worktree or submodule has), found without passing a folder of another account.
 * Outside a repository: `cwd` itself.
 */
export function repoRoot(cwd: string): string {
  return walkProject(cwd).root;
}
