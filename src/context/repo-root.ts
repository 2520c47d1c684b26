import fs from 'node:fs';
import path from 'node:path';

/**
 * The repository root: the nearest directory at or above `cwd` holding `.git` (a folder, or the
 * file a worktree or submodule has). Outside a repository: `cwd` itself.
 */
export function repoRoot(cwd: string): string {
  const start = path.resolve(cwd);
  for (let dir = start; ; ) {
    if (fs.existsSync(path.join(dir, '.git'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return start;
    dir = parent;
  }
}

/**
 * Directories from `cwd` up to the repository root (inclusive), nearest first. Outside a
 * repository: only `cwd`, so a stray file in a parent directory (or the home folder) is not
 * read as project data.
 */
export function projectDirs(cwd: string): string[] {
  const root = repoRoot(cwd);
  const dirs: string[] = [];
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    dirs.push(dir);
    if (dir === root || path.dirname(dir) === dir) break;
  }
  return dirs;
}
