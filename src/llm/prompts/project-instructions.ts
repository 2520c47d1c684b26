import fs from 'node:fs';
import path from 'node:path';

/** Files read as project instructions, in this order within each directory. */
export const INSTRUCTION_FILES = ['AGENTS.md', 'KEEN.md', 'CLAUDE.md'] as const;
/** Cap per file: instructions are guidance, not a place to paste a codebase. */
export const INSTRUCTION_FILE_CAP = 8 * 1024;

export interface InstructionFile {
  path: string;
  content: string;
  truncated: boolean;
}

/**
 * Instruction files found from `cwd` upward to the filesystem root (or the first directory that
 * holds `.git`, inclusive). Outermost first, so the closest file is read last and wins ties.
 */
export function findProjectInstructions(cwd: string): InstructionFile[] {
  const found: InstructionFile[] = [];
  let dir = path.resolve(cwd);
  for (;;) {
    for (const name of INSTRUCTION_FILES) {
      const file = path.join(dir, name);
      const content = readCapped(file);
      if (content) found.unshift(content);
    }
    if (fs.existsSync(path.join(dir, '.git'))) break;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return found;
}

function readCapped(file: string): InstructionFile | undefined {
  let buf: Buffer;
  try {
    if (!fs.statSync(file).isFile()) return undefined;
    buf = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  const truncated = buf.length > INSTRUCTION_FILE_CAP;
  const content = buf.subarray(0, INSTRUCTION_FILE_CAP).toString('utf8');
  return { path: file, content, truncated };
}
