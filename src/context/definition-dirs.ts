import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectDirs } from './repo-root.js';

/** Where one kind of definition (skills, commands, agents) is looked up, nearest first. */
export interface LookupRoots {
  /** Folder names inside each project directory, in priority order (e.g. `.keen/skills`). */
  project: readonly string[];
  /** Folders of the user, after every project folder. */
  user: readonly string[];
}

/** The user's home folder (`HOME` first, so tests and sandboxes can point it elsewhere). */
export function userHome(env: NodeJS.ProcessEnv): string {
  return env.HOME?.trim() || os.homedir();
}

/**
 * Absolute folders to search, in priority order: every project folder of `cwd`, then of each
 * parent up to the repository root, then the user's folders. The first definition of a name wins.
 */
export function lookupDirs(cwd: string, roots: LookupRoots): string[] {
  const out: string[] = [];
  for (const dir of projectDirs(cwd)) for (const rel of roots.project) out.push(path.join(dir, rel));
  out.push(...roots.user);
  return [...new Set(out)];
}

/**
 * The `*.md` files of `dirs`, folder by folder in priority order and by name within a folder
 * (commands and agents are one file each); a folder that does not exist or cannot be read is
 * skipped.
 */
export function* markdownFiles(dirs: readonly string[]): Generator<{ entry: string; file: string }> {
  for (const dir of dirs) {
    let names: string[];
    try {
      names = fs
        .readdirSync(dir)
        .filter((n) => n.endsWith('.md'))
        .sort();
    } catch {
      continue;
    }
    for (const entry of names) yield { entry, file: path.join(dir, entry) };
  }
}
