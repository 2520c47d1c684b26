import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { TRANSCRIPT_FILE } from './paths.js';
import { validateRecord, type SessionRecord } from './records.js';

/**
 * Cheap looks into a transcript, for the lookups on the path of every `--session`, `--continue`
 * and `--resume` (`findSession`, `latestSession` in list.ts): they read the first line and, when
 * asked, scan from the start only until the first user message — constant work whatever the file
 * size, except for a transcript that holds no user message at all (read to the end; such a
 * transcript is normally a few hundred bytes, a session opened and left). The byte patterns are
 * exact for transcripts Keen wrote: inside a JSON string a `"` is always escaped, so
 * `"kind":"user_message"` can only be a record's own kind.
 */

/** A session found on disk, without its contents. */
export interface SessionRef {
  id: string;
  /** The directory the session was started in ('' if its first record is damaged). */
  cwd: string;
  dir: string;
  transcript: string;
}

export const USER_KIND = Buffer.from('"kind":"user_message"');

/** The first line is `session_started`, a few hundred bytes; a longer one counts as damaged. */
const FIRST_LINE_MAX = 64 << 10;
/** Chunks of the search for the first user message: it is normally within the first one. */
const USER_SCAN_BYTES = 64 << 10;

/**
 * The session in `dir` if it has a transcript (and, with `userMessage`, only if that holds at
 * least one user message), with the cwd of its first record. Undefined otherwise.
 */
export async function peekSession(dir: string, id: string, opts: { userMessage?: boolean } = {}): Promise<SessionRef | undefined> {
  const transcript = join(dir, TRANSCRIPT_FILE);
  let fh: FileHandle;
  try {
    fh = await open(transcript, 'r');
  } catch {
    return undefined;
  }
  try {
    const { size } = await fh.stat();
    if (opts.userMessage && !(await holdsUserMessage(fh, size))) return undefined;
    const first = await readFirstRecord(fh, size);
    return { id, cwd: first?.kind === 'session_started' ? first.cwd : '', dir, transcript };
  } finally {
    await fh.close();
  }
}

/** The record on the first line, if that line is complete, at most 64 KB and valid. */
async function readFirstRecord(fh: FileHandle, size: number): Promise<SessionRecord | undefined> {
  const buf = Buffer.allocUnsafe(Math.min(FIRST_LINE_MAX, size));
  const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
  const nl = buf.subarray(0, bytesRead).indexOf(0x0a);
  return nl === -1 ? undefined : parseLine(buf.toString('utf8', 0, nl));
}

/** Whether `"kind":"user_message"` occurs anywhere; stops reading at the first hit. */
async function holdsUserMessage(fh: FileHandle, size: number): Promise<boolean> {
  return scanChunks(fh, size, USER_SCAN_BYTES, USER_KIND.length - 1, (view) => view.includes(USER_KIND));
}

/**
 * Reads the file from the start in chunks of `chunkBytes`, each preceded by the last `overlap`
 * bytes of the one before, so a pattern of up to `overlap + 1` bytes is never split. `visit` gets
 * the chunk and how many of its leading bytes it saw already (the carried overlap); returning true
 * stops the scan. Resolves whether a visit stopped it.
 */
export async function scanChunks(fh: FileHandle, size: number, chunkBytes: number, overlap: number, visit: (view: Buffer, seen: number) => boolean): Promise<boolean> {
  // Sized to the file, not the chunk, and not zero-filled: listing 10,000 small transcripts must
  // not fill 10,000 buffers of a megabyte.
  const buf = Buffer.allocUnsafe(Math.min(chunkBytes, size) + overlap);
  let carried = 0;
  for (let pos = 0; pos < size; ) {
    const { bytesRead } = await fh.read(buf, carried, Math.min(chunkBytes, buf.length - carried), pos);
    if (bytesRead === 0) break;
    pos += bytesRead;
    const view = buf.subarray(0, carried + bytesRead);
    if (visit(view, carried)) return true;
    const keep = Math.min(overlap, view.length);
    view.copy(buf, 0, view.length - keep);
    carried = keep;
  }
  return false;
}

/** One transcript line as a valid record, or undefined (blank, not JSON, or not a record). */
export function parseLine(text: string): SessionRecord | undefined {
  if (!text.trim()) return undefined;
  try {
    const checked = validateRecord(JSON.parse(text));
    return checked.ok ? checked.record : undefined;
  } catch {
    return undefined;
  }
}

const CONTENT_KEY = Buffer.from('"content":"');

/**
 * The beginning of the prompt of a `user_message` line cut short (the listing reads a bounded
 * head): the `message.content` string decoded as far as `line` holds it, or undefined when
 * `line` is no user message. Exact for lines Keen wrote: the envelope comes first, then
 * `message` with `role` before `content`, and a `"` inside a string is always escaped.
 */
export function promptOfCutLine(line: Buffer): string | undefined {
  const kind = line.indexOf(USER_KIND);
  if (kind === -1) return undefined;
  const key = line.indexOf(CONTENT_KEY, kind + USER_KIND.length);
  if (key === -1) return undefined;
  const start = key + CONTENT_KEY.length;
  let end = start;
  // Up to the closing quote, or the last whole escape before the cut.
  for (let i = start; i < line.length; ) {
    if (line[i] === 0x22) break;
    const step = line[i] === 0x5c ? (line[i + 1] === 0x75 ? 6 : 2) : 1;
    if (i + step > line.length) break;
    i += step;
    end = i;
  }
  // Whole characters only: a multi-byte one cut by the bound is left out.
  const raw = new StringDecoder('utf8').write(line.subarray(start, end));
  try {
    const text = JSON.parse(`"${raw}"`) as string;
    // Half of a surrogate pair cut by the bound.
    return /[\ud800-\udbff]$/.test(text) ? text.slice(0, -1) : text;
  } catch {
    return undefined;
  }
}
