import { lstat, readlink, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { relative, sep, join, resolve, isAbsolute, dirname, basename } from 'node:path';
import { isInside } from './permissions/request.js';
import { ToolError } from './registry.js';
import type { ToolContext } from './types.js';

export { isInside };

/**
 * Where file tools may look and write.
 *
 * - Reads: a relative path must stay inside the workspace (`../x` is refused); an absolute path
 *   (or `~/...`) names a file anywhere, and the permission engine decides on its real path
 *   (`realPath`): outside the workspace, reads ask.
 * - Writes: the target must be inside the workspace (or an `--add-dir` directory) after resolving
 *   symlinks — of the nearest existing ancestor, and of the target itself when it is a symlink —
 *   so a link pointing out of the workspace cannot be written through; and an existing file with
 *   more than one hard link is refused, since its other names may be outside.
 */

/** The workspace roots of a call: its cwd and the gate's additional directories. */
export function workspaceRoots(ctx: Pick<ToolContext, 'cwd' | 'permissions'>): string[] {
  return [ctx.cwd, ...(ctx.permissions.additionalDirs ?? [])];
}

/** The real location of `p` (following symlinks of existing parts; a missing tail is kept). */
export function realPath(p: string): Promise<string> {
  return realTarget(p, 0);
}

/** `p` relative to the workspace when inside it (posix separators), else absolute. */
export function displayPath(cwd: string, p: string): string {
  if (!isInside(cwd, p)) return p;
  const rel = relative(cwd, p);
  return rel === '' ? '.' : rel.split(sep).join('/');
}

function expandHome(input: string): string {
  if (input === '~') return homedir();
  if (input.startsWith('~/')) return join(homedir(), input.slice(2));
  return input;
}

/** Resolve a path for reading. Throws ToolError for a relative path that leaves the workspace. */
export function resolveReadPath(cwd: string, input: string, roots: readonly string[] = [cwd]): string {
  const expanded = expandHome(input.trim());
  if (expanded === '') throw new ToolError('path must not be empty.');
  const resolved = resolve(cwd, expanded);
  if (!isAbsolute(expanded) && !roots.some((root) => isInside(root, resolved))) {
    throw new ToolError(`Refusing to read ${input}: it is outside the workspace ${cwd}. Pass an absolute path to read files elsewhere.`);
  }
  return resolved;
}

/**
 * Resolve a path for writing. Throws ToolError when the target, after resolving symlinks, is
 * outside every root, or is a file with several hard links. Returns the lexical absolute path
 * (writes go through it) and the real one (rules and checkpoints use it).
 */
export async function resolveWritePath(cwd: string, input: string, roots: readonly string[] = [cwd]): Promise<{ abs: string; real: string }> {
  const expanded = expandHome(input.trim());
  if (expanded === '') throw new ToolError('path must not be empty.');
  const resolved = resolve(cwd, expanded);
  const tail = 'Only files inside the workspace can be changed.';
  if (!roots.some((root) => isInside(root, resolved))) {
    throw new ToolError(`Refusing to write ${input}: ${resolved} is outside the workspace ${cwd}. ${tail}`);
  }
  const realRoots = await Promise.all(roots.map((root) => realpath(root).catch(() => root)));
  const real = await realTarget(resolved, 0);
  if (!realRoots.some((root) => isInside(root, real))) {
    throw new ToolError(`Refusing to write ${input}: it leads through a symlink to ${real}, outside the workspace ${cwd}. ${tail}`);
  }
  const info = await lstat(real).catch(() => null);
  if (info?.isFile() && info.nlink > 1) {
    throw new ToolError(`Refusing to write ${input}: it has ${info.nlink} hard links, so the change would also reach its other names, which may be outside the workspace. ${tail}`);
  }
  return { abs: resolved, real };
}

/** The real location a write to `p` would land on, following symlinks of existing parts. */
async function realTarget(p: string, depth: number): Promise<string> {
  const info = await lstat(p).catch(() => null);
  if (info?.isSymbolicLink() && depth < 40) {
    // readlink, not realpath: a dangling link still decides where the new file would go.
    const target = resolve(dirname(p), await readlink(p));
    return realTarget(target, depth + 1);
  }
  return join(await realDir(dirname(p)), basename(p));
}

/** The real path of `dir`: its nearest existing ancestor resolved, the missing rest appended. */
export async function realDir(dir: string): Promise<string> {
  const rest: string[] = [];
  let existing = dir;
  for (;;) {
    try {
      return join(await realpath(existing), ...rest);
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return dir;
      rest.unshift(basename(existing));
      existing = parent;
    }
  }
}

/** One line for a failed fs call, naming the path as the model gave it. */
export function fsErrorText(err: unknown, shown: string): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return `File not found: ${shown}.`;
    case 'EACCES':
    case 'EPERM':
      return `Permission denied by the file system: ${shown}.`;
    case 'EISDIR':
      return `${shown} is a directory; use list_dir to see what is inside.`;
    case 'ENOTDIR':
      return `${shown}: a part of this path is a file, not a directory.`;
    default:
      return `${shown}: ${err instanceof Error ? err.message : String(err)}`;
  }
}
