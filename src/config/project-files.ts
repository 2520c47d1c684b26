import { type Stats, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { ownershipProblem } from '../security/file-owner.js';

/**
 * Why a project file (`.keen/config.json`, `.mcp.json`, `.claude/settings.json`) is not this
 * project's to read, or undefined when it is (or does not exist). It must be a regular file whose
 * real path lies inside the real `cwd`: a link to a file elsewhere (a token, `/proc/self/environ`)
 * would be read as config and quoted by a JSON error, and a FIFO would never end. The file,
 * followed through links, and every folder from it up to `cwd` must be owned by this account or
 * root and writable by no other account: another user's folder in a shared `/tmp` is not the
 * user's project. Never throws.
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
  if (!st.isFile()) return 'it is not a regular file';
  const place = placeProblem(root, file);
  if (place) return place;
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

/** Why `file`'s real path is not inside `root`'s, or undefined when it is. */
function placeProblem(root: string, file: string): string | undefined {
  try {
    const real = realpathSync.native(file);
    const top = realpathSync.native(root);
    const rel = relative(top, real);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? undefined : `it leads outside ${root} (to ${real})`;
  } catch {
    return 'its real path cannot be told';
  }
}
