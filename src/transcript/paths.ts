import { createHash, randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { KeenError } from '../errors.js';

/**
 * Where sessions live:
 *
 *   $KEEN_HOME/sessions/<sanitized-cwd>-<hash8>/<session-id>/transcript_events.jsonl
 *
 * The project directory name is readable (the tail of the working directory, sanitised) and
 * unique (the first 8 hex digits of the SHA-256 of the full path). Every function here is pure:
 * none touches the disk.
 */

export const TRANSCRIPT_FILE = 'transcript_events.jsonl';
/** Damaged bytes moved out of the transcript on repair are appended here, never deleted. */
export const CORRUPT_FILE = 'transcript_events.jsonl.corrupt';
export const LOCK_FILE = 'writer.lock';

const MAX_NAME_CHARS = 48;

export function sessionsRoot(home: string): string {
  return join(home, 'sessions');
}

/** `/home/ann/src/my app` → `home-ann-src-my-app-1a2b3c4d`. */
export function projectDirName(cwd: string): string {
  const full = resolve(cwd);
  const hash = createHash('sha256').update(full).digest('hex').slice(0, 8);
  let name = full.replace(/[^A-Za-z0-9._]+/g, '-').replace(/^[-.]+|-+$/g, '');
  // Keep the end of a long path: the project's own folder name is the part worth reading.
  if (name.length > MAX_NAME_CHARS) name = name.slice(-MAX_NAME_CHARS).replace(/^[-.]+/, '');
  return name ? `${name}-${hash}` : hash;
}

export function projectDir(home: string, cwd: string): string {
  return join(sessionsRoot(home), projectDirName(cwd));
}

/** The directory of one session. Throws a KeenError for a malformed id (before any disk access). */
export function sessionDir(home: string, cwd: string, id: string): string {
  assertSessionId(id);
  return join(projectDir(home, cwd), id);
}

export function transcriptPath(home: string, cwd: string, id: string): string {
  return join(sessionDir(home, cwd, id), TRANSCRIPT_FILE);
}

// ---- session ids ------------------------------------------------------------------------------

/** Crockford-style base32, lower case: no i, l, o, u, so ids are easy to read aloud and type. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const ID_PATTERN = /^\d{8}-\d{6}-[0-9a-hjkmnp-tv-z]{6}$/;

/**
 * A new session id: UTC time to the second plus 30 random bits, e.g. `20250301-142233-k3f9qz`.
 * Ids sort by creation time and are safe in paths, URLs and shells.
 */
export function newSessionId(now: Date = new Date()): string {
  const iso = now.toISOString(); // 2025-03-01T14:22:33.123Z
  const stamp = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}`;
  const bytes = randomBytes(6);
  let suffix = '';
  for (const b of bytes) suffix += ALPHABET[b & 31];
  return `${stamp}-${suffix}`;
}

export function isValidSessionId(id: string): boolean {
  return ID_PATTERN.test(id);
}

/** Throws a one-line KeenError naming the bad id and how to find a good one. */
export function assertSessionId(id: string): void {
  if (!isValidSessionId(id)) {
    const shown = JSON.stringify(id.length > 60 ? `${id.slice(0, 57)}...` : id);
    throw new KeenError(`${shown} is not a session id (they look like 20250301-142233-k3f9qz); run \`keen sessions\` to list sessions`);
  }
}
