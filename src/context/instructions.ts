import fs from 'node:fs';
import path from 'node:path';
import { readCapped, type CappedFile } from './read-capped.js';

/** Files read as project instructions, in this order within each directory. */
export const INSTRUCTION_FILES = ['AGENTS.md', 'KEEN.md', 'CLAUDE.md'] as const;
/** Cap per file: instructions are guidance, not a place to paste a codebase. */
export const INSTRUCTION_FILE_CAP = 8 * 1024;

export interface InstructionFile extends CappedFile {
  scope: 'user' | 'project';
}

/** The user's global instructions: `$KEEN_HOME/AGENTS.md`. */
export function globalInstructionsPath(home: string): string {
  return path.join(home, 'AGENTS.md');
}

/**
 * Instruction files in the order they go into the system prompt: the user's global
 * `$KEEN_HOME/AGENTS.md` first, then the project's files from the outermost directory to `cwd`
 * (up to the first directory holding `.git`, inclusive, or the filesystem root), so the nearest
 * file comes last and wins. Each is capped at {@link INSTRUCTION_FILE_CAP}.
 */
export function findInstructions(cwd: string, home: string): InstructionFile[] {
  const project = findProjectInstructions(cwd);
  const global = readCapped(globalInstructionsPath(home), INSTRUCTION_FILE_CAP);
  // A KEEN_HOME inside the project (or the project's own AGENTS.md as KEEN_HOME) is read once.
  if (!global || project.some((f) => f.path === global.path)) return project;
  return [{ ...global, scope: 'user' }, ...project];
}

/**
 * Project instruction files from `cwd` upward to the filesystem root (or the first directory
 * that holds `.git`, inclusive). Outermost first, so the closest file is read last and wins ties.
 */
export function findProjectInstructions(cwd: string): InstructionFile[] {
  const found: InstructionFile[] = [];
  let dir = path.resolve(cwd);
  for (;;) {
    const here: InstructionFile[] = [];
    for (const name of INSTRUCTION_FILES) {
      const file = readCapped(path.join(dir, name), INSTRUCTION_FILE_CAP);
      if (file) here.push({ ...file, scope: 'project' });
    }
    found.unshift(...here);
    if (fs.existsSync(path.join(dir, '.git'))) break;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return found;
}
