import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, dirname, basename } from 'node:path';
import { dirProblem, realPath } from './file-trust.js';
import { asWalk, type WalkFrom } from './repo-root.js';

/** Where one kind of definition (skills, commands, agents) is looked up, nearest first. */
export interface LookupRoots {
  /** Folder names inside each project directory, in priority order (e.g. `.keen/skills`). */
  project: readonly string[];
  /** Folders of the user, after every project folder, each with the config folder it belongs to. */
  user: readonly UserDir[];
}

/** A user folder of definitions (`$KEEN_HOME/skills`) and its config folder (`$KEEN_HOME`). */
export interface UserDir {
  dir: string;
  /** The config folder the definitions' real paths must stay inside. */
  config: string;
}

/** A folder to search, and the real folder its files' real paths must stay inside. */
export interface LookupDir {
  dir: string;
  within: string;
}

/** The user's home folder (`HOME` first, so tests and sandboxes can point it elsewhere). */
export function userHome(env: NodeJS.ProcessEnv): string {
  return env.HOME?.trim() || homedir();
}

/**
 * Absolute folders to search, in priority order: every project folder of `cwd`, then of each
 * parent up to the repository root (bounded by the real repository root), then the user's
 * folders (bounded by their config folder). The first definition of a name wins. A folder that
 * does not resolve is left out.
 */
export function lookupDirs(cwd: WalkFrom, roots: LookupRoots): LookupDir[] {
  const out: LookupDir[] = [];
  const walk = asWalk(cwd);
  const root = realPath(walk.root);
  const dirs = walk.repo ? walk.dirs : walk.dirs.slice(0, 1);
  if (root) for (const dir of dirs) for (const rel of roots.project) out.push({ dir: join(dir, rel), within: root });
  for (const { dir, config } of roots.user) {
    const within = realPath(config);
    if (within) out.push({ dir, within });
  }
  const seen = new Set<string>();
  return out.filter((d) => !seen.has(d.dir) && seen.add(d.dir));
}

/** A plain folder (tests, callers without a root) is bounded by its own real path. */
export function asLookupDir(d: string | LookupDir): LookupDir | undefined {
  if (typeof d !== 'string') return d;
  const within = realPath(d);
  return within ? { dir: d, within } : undefined;
}

/**
 * Whether `dir` may be searched: every folder from `within`'s side down to it is this
 * account's (a `.keen/agents` of another account is skipped with a warning). Missing: silently no.
 */
export function searchable(dir: string, warnings?: string[]): boolean {
  const problem = dirProblem(dir);
  if (problem === 'missing' || problem === 'not a folder') return false;
  const parent = dirname(dir);
  const parentProblem = basename(parent).startsWith('.') ? dirProblem(parent) : undefined;
  const why = problem ? `${dir} is ${problem}` : parentProblem ? `${parent} is ${parentProblem}` : undefined;
  if (!why) return true;
  const line = `skipped folder ${dir}: ${why}`;
  if (warnings && !warnings.includes(line)) warnings.push(line);
  return false;
}

/**
 * The `*.md` files of `dirs`, folder by folder in priority order and by name within a folder
 * (commands and agents are one file each); a folder that does not exist, cannot be read or is
 * another account's is skipped.
 */
export function* markdownFiles(dirs: readonly (string | LookupDir)[], warnings?: string[]): Generator<{ entry: string; file: string; within: string }> {
  for (const d of dirs) {
    const at = asLookupDir(d);
    if (!at || !searchable(at.dir, warnings)) continue;
    let names: string[];
    try {
      names = readdirSync(at.dir)
        .filter((n) => n.endsWith('.md'))
        .sort();
    } catch {
      continue;
    }
    for (const entry of names) yield { entry, file: join(at.dir, entry), within: at.within };
  }
}
