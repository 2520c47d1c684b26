import { sep, relative, isAbsolute } from 'node:path';
import type { PermissionRequest } from '../types.js';

/** What a call does, for modes and rules. */
export type Access = 'read' | 'write' | 'exec';

/** File tools that only read. */
export const FILE_READ_TOOLS = new Set(['read_file', 'glob', 'grep', 'list_dir']);
/** File tools that change files (and are checkpointed for undo). */
export const FILE_WRITE_TOOLS = new Set(['write_file', 'edit_file']);

/** The request's access, inferred from the tool name when the tool did not say. */
export function accessOf(request: PermissionRequest): Access {
  if (request.access) return request.access;
  if (FILE_READ_TOOLS.has(request.tool)) return 'read';
  if (FILE_WRITE_TOOLS.has(request.tool)) return 'write';
  return 'exec';
}

/** True when `p` is `root` or below it. Both must be absolute and normalised. */
export function isInside(root: string, p: string): boolean {
  // POSIX: for absolute paths without `.`, `..` or empty segments a prefix test is the answer, and
  // it is cheap (a search's result filter asks it for every credential folder of every result).
  if (sep === '/' && plainAbsolute(root) && plainAbsolute(p)) {
    const r = root.length > 1 && root.endsWith('/') ? root.slice(0, -1) : root;
    const q = p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
    return q === r || q.startsWith(r === '/' ? '/' : `${r}/`);
  }
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** A `.` or `..` segment, a name starting with `..`, or an empty segment: left to path.relative. */
const NOT_PLAIN = /\/\.\.|\/\.(?:\/|$)|\/\//;

function plainAbsolute(p: string): boolean {
  return p.startsWith('/') && !NOT_PLAIN.test(p);
}

/** `abs` relative to `root`, with posix separators. */
export function posixRel(root: string, abs: string): string {
  return relative(root, abs).split(sep).join('/');
}

/** The command a bash request is about: `command`, else `detail` (the older convention). */
export function bashCommandOf(request: PermissionRequest): string {
  return (request.command ?? request.detail ?? '').trim();
}
