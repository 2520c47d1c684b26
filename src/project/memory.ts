import { existsSync, constants } from 'node:fs';
import { type FileHandle, mkdir, open } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import { dirProblem, isWithin, openedRealPath, ownershipProblem, realPath } from './file-trust.js';
import { readCapped, type CappedFile } from './read-capped.js';
import { asWalk, type WalkFrom } from './repo-root.js';

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

export function memoryPaths(cwd: WalkFrom, home: string): MemoryPaths {
  return { user: join(home, 'memory.md'), project: join(asWalk(cwd).root, '.keen', 'memory.md') };
}

/** The folder a scope's memory file must stay inside: the repository root, or KEEN_HOME. */
export function memoryRoot(paths: MemoryPaths, scope: MemoryScope): string {
  return scope === 'project' ? dirname(dirname(paths.project)) : dirname(paths.user);
}

/**
 * The memory files that exist, user first, each capped at {@link MEMORY_FILE_CAP}. A file that
 * leads out of its root ({@link memoryRoot}), or whose file or folders are another account's, is
 * skipped with a line in `warnings`.
 */
export function readMemory(paths: MemoryPaths, warnings?: string[]): MemoryFile[] {
  const out: MemoryFile[] = [];
  for (const scope of ['user', 'project'] as const) {
    const file = readMemoryFile(paths, scope, MEMORY_FILE_CAP, warnings);
    if (file && file.content.trim()) out.push({ ...file, scope });
  }
  return out;
}

/** One scope's memory file, read as {@link readMemory} does (for `/memory`, with its own cap). */
export function readMemoryFile(paths: MemoryPaths, scope: MemoryScope, cap: number, warnings?: string[]): CappedFile | undefined {
  const file = paths[scope];
  if (!existsSync(file)) return undefined;
  const root = memoryRoot(paths, scope);
  // An untrusted project root is reported once by the project walk (`loadProjectContext`).
  if (scope === 'project' && dirProblem(root)) return undefined;
  const problem = folderProblem(root, dirname(file));
  const within = realPath(root);
  if (problem || !within) {
    const line = `skipped memory ${file}: its folder is ${problem ?? 'missing'}`;
    if (warnings && !warnings.includes(line)) warnings.push(line);
    return undefined;
  }
  return readCapped(file, cap, { within, warnings, what: 'memory' });
}

/** Why `root` or `dir` (below it, or equal) is not this account's folder, naming it. */
function folderProblem(root: string, dir: string): string | undefined {
  for (const d of dir === root ? [root] : [root, dir]) {
    const problem = dirProblem(d);
    if (problem) return `${d}: ${problem}`;
  }
  return undefined;
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
 * Refused (an Error naming the file) when the file or its folder is a symlink leading out of the
 * scope's root, or is another account's (a fake repository root in a shared /tmp): the checks are
 * made on the opened descriptor.
 */
export async function appendMemory(paths: MemoryPaths, scope: MemoryScope, fact: string): Promise<string> {
  const bullet = memoryBullet(fact);
  const file = paths[scope];
  const root = memoryRoot(paths, scope);
  // A missing KEEN_HOME is made; a folder of another account gets nothing, not even `.keen/`.
  if (dirProblem(root) === 'missing') await mkdir(root, { recursive: true, mode: 0o700 });
  const rootProblem = dirProblem(root);
  if (rootProblem) throw new Error(`refusing to write ${scope} memory in ${root}: it is ${rootProblem}`);
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const folder = folderProblem(root, dirname(file));
  if (folder) throw new Error(`refusing to write ${scope} memory in ${folder}`);
  const within = realPath(root);
  const dir = realPath(dirname(file));
  if (!within || !dir || !isWithin(within, dir)) throw new Error(`refusing to write ${scope} memory through a symlink (${dirname(file)} leads outside ${root})`);
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0), 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new Error(`refusing to write ${scope} memory through a symlink (${file})`);
    throw err;
  }
  try {
    const st = await handle.stat();
    const real = openedRealPath(handle.fd, file, st);
    if (!real || !within || !isWithin(within, real)) throw new Error(`refusing to write ${scope} memory through a symlink (${file} leads outside ${root})`);
    if (!st.isFile()) throw new Error(`refusing to write ${scope} memory: ${file} is not a regular file`);
    const owner = ownershipProblem(st);
    if (owner) throw new Error(`refusing to write ${scope} memory: ${file} is ${owner}`);
    let prefix = '';
    if (st.size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, st.size - 1);
      if (last[0] !== 0x0a) prefix = '\n';
    }
    await handle.appendFile(prefix + bullet);
  } finally {
    await handle.close();
  }
  return file;
}
