import { type Stats, statSync } from 'node:fs';
import { resolve, dirname } from 'node:path';
import { ownershipProblem } from '../security/file-owner.js';

/**
 * Why a project file (`.keen/config.json`, `.mcp.json`) is not this account's to read, or
 * undefined when it is (or does not exist). The file, followed through links, and every folder
 * from it up to `cwd` must be owned by this account or root and writable by no other account:
 * another user's folder in a shared `/tmp` is not the user's project. Never throws.
 */
export function projectFileProblem(cwd: string, file: string): string | undefined {
  const root = resolve(cwd);
  let st: Stats | undefined;
  try {
    st = statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  if (!st) return undefined;
  const own = ownershipProblem(st);
  if (own) return `it is ${own}`;
  for (let dir = dirname(resolve(file)); ; dir = dirname(dir)) {
    let d: Stats | undefined;
    try {
      d = statSync(dir, { throwIfNoEntry: false });
    } catch {
      d = undefined;
    }
    const problem = d ? ownershipProblem(d) : undefined;
    if (problem) return `its folder ${dir} is ${problem}`;
    if (dir === root || dirname(dir) === dir || !dir.startsWith(root)) return undefined;
  }
}
