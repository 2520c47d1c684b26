import { join } from 'node:path';
import { realPath } from './file-trust.js';
import { readCapped, type CappedFile } from './read-capped.js';
import { asWalk, type WalkFrom } from './repo-root.js';

/** Files read as project instructions, in this order within each directory. */
export const INSTRUCTION_FILES = ['AGENTS.md', 'KEEN.md', 'CLAUDE.md'] as const;
/** Cap per file: instructions are guidance, not a place to paste a codebase. */
export const INSTRUCTION_FILE_CAP = 8 * 1024;

export interface InstructionFile extends CappedFile {
  scope: 'user' | 'project';
}

/** The user's global instructions: `$KEEN_HOME/AGENTS.md`. */
export function globalInstructionsPath(home: string): string {
  return join(home, 'AGENTS.md');
}

/**
 * Instruction files in the order they go into the system prompt: the user's global
 * `$KEEN_HOME/AGENTS.md` first, then the project's files from the outermost directory to `cwd`
 * (up to the first directory holding `.git`, inclusive, or the filesystem root), so the nearest
 * file comes last and wins. Each is capped at {@link INSTRUCTION_FILE_CAP}. A file that leads out
 * of its place (the project; KEEN_HOME for the global one) or is another account's is skipped
 * with a line in `warnings`.
 */
export function findInstructions(cwd: WalkFrom, home: string, warnings?: string[]): InstructionFile[] {
  const project = findProjectInstructions(cwd, warnings);
  const within = realPath(home);
  const global = within ? readCapped(globalInstructionsPath(home), INSTRUCTION_FILE_CAP, { within, warnings, what: 'instructions' }) : undefined;
  // A KEEN_HOME inside the project (or the project's own AGENTS.md as KEEN_HOME) is read once.
  if (!global || project.some((f) => f.path === global.path)) return project;
  return [{ ...global, scope: 'user' }, ...project];
}

/**
 * Project instruction files from `cwd` upward to the filesystem root (or the first directory
 * that holds `.git`, inclusive), through this account's folders only (see `walkProject`).
 * Outermost first, so the closest file is read last and wins ties. A file's real path must be
 * inside the repository root — or, above `cwd` outside a repository, inside its own folder.
 */
export function findProjectInstructions(cwd: WalkFrom, warnings?: string[]): InstructionFile[] {
  const walk = asWalk(cwd);
  const root = realPath(walk.root);
  const found: InstructionFile[] = [];
  for (const dir of walk.dirs) {
    const within = walk.repo || dir === walk.root ? root : realPath(dir);
    if (!within) continue;
    const here: InstructionFile[] = [];
    for (const name of INSTRUCTION_FILES) {
      const file = readCapped(join(dir, name), INSTRUCTION_FILE_CAP, { within, warnings, what: 'instructions' });
      if (file) here.push({ ...file, scope: 'project' });
    }
    found.unshift(...here);
  }
  return found;
}
