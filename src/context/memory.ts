import fs from 'node:fs/promises';
import path from 'node:path';
import { readCapped, type CappedFile } from './read-capped.js';
import { repoRoot } from './repo-root.js';

/** Cap per memory file in the system prompt. */
export const MEMORY_FILE_CAP = 8 * 1024;
/** A single remembered fact at most (one bullet, one line). */
export const MEMORY_FACT_MAX = 1000;

export type MemoryScope = 'user' | 'project';

export interface MemoryPaths {
  /** `$KEEN_HOME/memory.md`. */
  user: string;
  /** `.keen/memory.md` at the repository root (the cwd outside a repository). */
  project: string;
}

export interface MemoryFile extends CappedFile {
  scope: MemoryScope;
}

export function memoryPaths(cwd: string, home: string): MemoryPaths {
  return { user: path.join(home, 'memory.md'), project: path.join(repoRoot(cwd), '.keen', 'memory.md') };
}

/** The memory files that exist, user first, each capped at {@link MEMORY_FILE_CAP}. */
export function readMemory(paths: MemoryPaths): MemoryFile[] {
  const out: MemoryFile[] = [];
  for (const scope of ['user', 'project'] as const) {
    const file = readCapped(paths[scope], MEMORY_FILE_CAP);
    if (file && file.content.trim()) out.push({ ...file, scope });
  }
  return out;
}

/**
 * A fact as one Markdown bullet: whitespace (newlines included) collapsed, a leading bullet
 * marker dropped. Throws on an empty or over-long fact, with a message for the model or user.
 */
export function memoryBullet(fact: string): string {
  const text = fact
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[-*]\s+/, '');
  if (!text) throw new Error('the fact is empty');
  if (text.length > MEMORY_FACT_MAX) throw new Error(`the fact is too long (${text.length} characters, at most ${MEMORY_FACT_MAX})`);
  return `- ${text}\n`;
}

/**
 * Appends one bullet to the scope's memory file, creating the file (and `.keen/`) on first
 * write. An existing file that does not end in a newline gets one first. Returns the path.
 */
export async function appendMemory(paths: MemoryPaths, scope: MemoryScope, fact: string): Promise<string> {
  const bullet = memoryBullet(fact);
  const file = paths[scope];
  await fs.mkdir(path.dirname(file), { recursive: true });
  if (scope === 'project') await assertInsideProject(file);
  let prefix = '';
  try {
    const current = await fs.readFile(file, 'utf8');
    if (current && !current.endsWith('\n')) prefix = '\n';
  } catch {
    // first write
  }
  await fs.appendFile(file, prefix + bullet, { mode: 0o600 });
  return file;
}

/**
 * The project memory file is repository content: a `.keen` folder or `memory.md` that is a
 * symlink leading out of the repository (to `~/.bashrc`, say) must not turn a remembered fact into
 * a write elsewhere. The real path of the file's folder must stay inside the real repository root,
 * and the file itself must not be a symlink.
 */
async function assertInsideProject(file: string): Promise<void> {
  const root = await fs.realpath(path.dirname(path.dirname(file)));
  const dir = await fs.realpath(path.dirname(file));
  const rel = path.relative(root, dir);
  const outside = rel.startsWith('..') || path.isAbsolute(rel);
  let link = false;
  try {
    link = (await fs.lstat(file)).isSymbolicLink();
  } catch {
    // not created yet
  }
  if (outside || link) throw new Error(`refusing to write project memory through a symlink (${file})`);
}
