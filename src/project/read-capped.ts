import { constants, statSync, openSync, fstatSync, closeSync, type Stats, readSync } from 'node:fs';
import { isWithin, openedRealPath, ownershipProblem } from './file-trust.js';

/** A text file read with a byte cap. */
export interface CappedFile {
  path: string;
  content: string;
  /** The file was longer than the cap; `content` holds its first `cap` bytes. */
  truncated: boolean;
}

/** Where a context file may live, and where a skipped one is reported. */
export interface ReadScope {
  /**
   * A real folder the opened file's real path must be inside (the project root, the user's
   * config folder). Absent: the file itself must not be a symlink.
   */
  within?: string;
  /** Gets one line per file skipped for its place or owner: `skipped <what> <file>: <why>`. */
  warnings?: string[];
  /** What the file is, for the warning ("instructions", "memory", "skill"…). */
  what?: string;
}

const { O_RDONLY, O_NONBLOCK = 0, O_NOFOLLOW = 0 } = constants;

/**
 * Reads at most `cap` bytes of a regular file. Missing files, directories and unreadable files
 * are `undefined`: every context file is optional. A file whose real path is outside
 * `scope.within`, that is owned by another account or writable by others is `undefined` too, with
 * a warning line: the checks are made on the opened descriptor, so a file swapped for a symlink
 * between check and read cannot win. A multi-byte character cut by the cap is dropped rather than
 * shown as a replacement character.
 */
export function readCapped(file: string, cap: number, scope: ReadScope = {}): CappedFile | undefined {
  let fd: number;
  try {
    // Only a regular file is opened (a device behind a symlink is never opened); what the name
    // points to may change before the open, so everything that matters is checked on the fd.
    if (!statSync(file, { throwIfNoEntry: false })?.isFile()) return undefined;
    // O_NONBLOCK: a FIFO swapped in after the stat must not hang the open.
    fd = openSync(file, O_RDONLY | O_NONBLOCK | (scope.within ? 0 : O_NOFOLLOW));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') skip(scope, file, 'it is a symlink');
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return undefined;
    const problem = ownershipProblem(st) ?? (scope.within ? placeProblem(fd, file, st, scope.within) : undefined);
    if (problem) {
      skip(scope, file, problem);
      return undefined;
    }
    // Up to the size the descriptor had (one read for a small file), and never past the cap.
    const buf = readUpTo(fd, Math.min(cap + 1, st.size));
    const truncated = buf.length > cap;
    let content = buf.subarray(0, cap).toString('utf8');
    if (truncated) content = content.replace(/\uFFFD$/, '');
    return { path: file, content, truncated };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function placeProblem(fd: number, file: string, st: Stats, within: string): string | undefined {
  const real = openedRealPath(fd, file, st);
  if (!real) return 'its real path cannot be told';
  return isWithin(within, real) ? undefined : `it leads outside ${within} (to ${real})`;
}

function skip(scope: ReadScope, file: string, why: string): void {
  const line = `skipped ${scope.what ? `${scope.what} ` : ''}${file}: ${why}`;
  if (scope.warnings && !scope.warnings.includes(line)) scope.warnings.push(line);
}

function readUpTo(fd: number, max: number): Buffer {
  const buf = Buffer.allocUnsafe(max);
  let got = 0;
  while (got < max) {
    const n = readSync(fd, buf, got, max - got, null);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** The note appended to a capped file's text in the system prompt. */
export function capNote(file: CappedFile, cap: number): string {
  return file.truncated ? `\n[truncated to ${cap} bytes]` : '';
}
