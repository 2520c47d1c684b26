import { oneLine } from '../core/one-line.js';
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { type FileHandle, open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { KeenError } from '../errors.js';
import { TRANSCRIPT_FILE, assertSessionId, isValidSessionId, projectDir, sessionsRoot } from './paths.js';
import { parseLine, peekSession, promptOfCutLine, scanChunks, type SessionRef, USER_KIND } from './peek.js';
import type { SessionRecord } from './records.js';

export type { SessionRef } from './peek.js';

/**
 * Listing and finding sessions without loading them. A summary reads the head of the transcript
 * (session_started, first prompt), its tail (last activity) and counts turns and compactions with
 * a byte scan — no JSON parsing of the bulk, so listing a 100 MB transcript takes milliseconds of
 * CPU. The scan is exact for transcripts Keen wrote: inside a JSON string a `"` is always escaped,
 * so `"kind":"user_message"` can only be a record's own kind. Finding one session (`findSession`,
 * `latestSession`) does not summarise: it reads the first line and, for `latestSession`, only as
 * far as the first user message (peek.ts).
 */

export interface SessionSummary extends SessionRef {
  lastActivity: Date;
  /** The first user prompt on one line, at most 200 characters ('' if none yet). */
  firstPrompt: string;
  /** Number of user prompts. */
  turns: number;
  compacted: boolean;
  provider?: string;
  model?: string;
}

const HEAD_BYTES = 64 << 10;
/**
 * The most of a transcript's head a summary reads: session_started and the first prompt start
 * within it; a prompt line longer than this is shown from the part read (promptOfCutLine).
 */
export const HEAD_LIMIT = 256 << 10;
const TAIL_BYTES = 64 << 10;
const SCAN_BYTES = 1 << 20;
const COMPACTION_KIND = Buffer.from('"kind":"compaction_applied"');

/** How many large transcripts are read at once: enough to keep the disk busy, few open files. */
const READ_CONCURRENCY = 32;
/**
 * A transcript up to this size (nearly every one) is read once, whole and synchronously: head,
 * counts and last line from one buffer. Node's promise reads cost several times the system calls
 * themselves, which for 10,000 small files is most of a listing; larger ones are read in parallel.
 */
const WHOLE_READ_BYTES = 64 << 10;
/** Files read synchronously between yields to the event loop, so a REPL listing never freezes it. */
const SYNC_SLICE = 200;

/** One page of a session listing, and how many sessions there are in all. */
export interface SessionPage {
  rows: SessionSummary[];
  total: number;
}

export interface ListOptions {
  /** Every directory's sessions, not only `cwd`'s. */
  all?: boolean;
  /** At most this many rows (the most recently written transcripts); all when absent. */
  limit?: number;
  /** Rows to skip before the page (with `limit`). */
  offset?: number;
}

/** Sessions of `cwd` (or of every directory with `all`), most recently active first. */
export async function listSessions(home: string, cwd: string, opts: ListOptions = {}): Promise<SessionSummary[]> {
  return (await listSessionPage(home, cwd, opts)).rows;
}

/**
 * One page of sessions, most recently active first. Without `limit` every session is summarised
 * (a small transcript in one synchronous read, slices of them between yields to the event loop;
 * large ones in bounded parallel reads). With `limit` only the transcripts'
 * mtimes are read for all, and only the page is summarised: the page is chosen by transcript
 * mtime (which is the last record's time for a transcript Keen wrote) and sorted by last activity.
 */
export async function listSessionPage(home: string, cwd: string, opts: ListOptions = {}): Promise<SessionPage> {
  const projects = opts.all ? (await subdirs(sessionsRoot(home))).map((d) => join(sessionsRoot(home), d)) : [projectDir(home, cwd)];
  const dirs: { dir: string; id: string }[] = [];
  for (const project of projects) {
    for (const id of await subdirs(project)) if (isValidSessionId(id)) dirs.push({ dir: join(project, id), id });
  }
  let chosen = dirs;
  let total = dirs.length;
  if (opts.limit !== undefined) {
    const stamped = (await mapSliced(dirs, (d) => ({ ...d, mtime: transcriptMtime(d.dir) }))).filter((d) => d.mtime !== undefined);
    stamped.sort((a, b) => (b.mtime ?? 0) - (a.mtime ?? 0) || (a.id < b.id ? 1 : -1));
    total = stamped.length;
    const from = opts.offset ?? 0;
    chosen = stamped.slice(from, from + opts.limit);
  }
  const rows = (await summarizeMany(chosen)).filter((r): r is SessionSummary => r !== undefined);
  if (opts.limit === undefined) total = rows.length;
  return { rows: rows.sort((a, b) => b.lastActivity.getTime() - a.lastActivity.getTime() || (a.id < b.id ? 1 : -1)), total };
}

/** Small transcripts in synchronous slices, then the large ones in bounded parallel reads. */
async function summarizeMany(dirs: readonly { dir: string; id: string }[]): Promise<(SessionSummary | undefined)[]> {
  const small = await mapSliced(dirs, (d) => summarizeSmall(d.dir, d.id));
  const large = dirs.filter((_, i) => small[i] === LARGE);
  const big = await mapBounded(large, READ_CONCURRENCY, (d) => summarizeSession(d.dir, d.id));
  let next = 0;
  return small.map((r) => (r === LARGE ? big[next++] : r));
}

function transcriptMtime(dir: string): number | undefined {
  try {
    const st = statSync(join(dir, TRANSCRIPT_FILE));
    return st.isFile() ? st.mtimeMs : undefined;
  } catch {
    return undefined;
  }
}

/** `fn` over `items` synchronously, yielding to the event loop every SYNC_SLICE items. */
async function mapSliced<T, R>(items: readonly T[], fn: (item: T) => R): Promise<R[]> {
  const out = new Array<R>(items.length);
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && i % SYNC_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    out[i] = fn(items[i]);
  }
  return out;
}

/** `fn` over `items` with at most `limit` running at once; results in the items' order. */
async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * The session `id` of `cwd`. Throws a one-line KeenError when the id is malformed, belongs to
 * another directory, or does not exist. Reads one transcript's first line, whatever its size.
 */
export async function findSession(home: string, cwd: string, id: string): Promise<SessionRef> {
  assertSessionId(id);
  const here = await peekSession(join(projectDir(home, cwd), id), id);
  if (here) return here;
  for (const project of await subdirs(sessionsRoot(home))) {
    const elsewhere = await peekSession(join(sessionsRoot(home), project, id), id);
    if (elsewhere) {
      throw new KeenError(`session ${id} belongs to ${elsewhere.cwd || 'another directory'}; run keen there (\`keen sessions --all\` lists every session)`);
    }
  }
  throw new KeenError(`no session ${id} in ${cwd}; run \`keen sessions\` to list sessions`);
}

/**
 * The most recently active session of `cwd` that holds at least one user message (by transcript
 * mtime), or undefined. Sessions opened and left without a message (a REPL started and quit) are
 * skipped, so `--continue` never lands on an empty one. Each candidate is read from the start only
 * until its first user message (normally in the first 64 KB); an empty one is read to its end.
 */
export async function latestSession(home: string, cwd: string): Promise<SessionRef | undefined> {
  const project = projectDir(home, cwd);
  const found: { id: string; mtime: number }[] = [];
  for (const id of await subdirs(project)) {
    if (!isValidSessionId(id)) continue;
    try {
      const st = await stat(join(project, id, TRANSCRIPT_FILE));
      // A FIFO or folder of that name is no session (opening a FIFO would wait for a writer).
      if (st.isFile()) found.push({ id, mtime: st.mtimeMs });
    } catch {
      // a directory without a transcript is not a session
    }
  }
  found.sort((a, b) => b.mtime - a.mtime || (a.id < b.id ? 1 : -1));
  for (const { id } of found) {
    const session = await peekSession(join(project, id), id, { userMessage: true });
    if (session) return session;
  }
  return undefined;
}

/** What summarizeSmall hands on to the parallel reads: the transcript is over WHOLE_READ_BYTES. */
const LARGE = Symbol('large');

/**
 * Summarise a session whose transcript fits WHOLE_READ_BYTES with synchronous reads; LARGE for a
 * larger one; undefined when there is no readable transcript.
 */
function summarizeSmall(dir: string, id: string): SessionSummary | undefined | typeof LARGE {
  const transcript = join(dir, TRANSCRIPT_FILE);
  let fd: number;
  try {
    // Non-blocking, so a FIFO of that name cannot hold the listing (no effect on a regular file).
    fd = openSync(transcript, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return undefined;
    const { size, mtime } = st;
    if (size > WHOLE_READ_BYTES) return LARGE;
    const buf = Buffer.allocUnsafe(size);
    let got = 0;
    while (got < size) {
      const n = readSync(fd, buf, got, size - got, got);
      if (n === 0) break;
      got += n;
    }
    const whole = buf.subarray(0, got);
    return summaryOf({ id, dir, transcript }, mtime, headOf(whole), countsOf(whole), lastTsOf(whole.toString('utf8'), true));
  } catch {
    return undefined; // an I/O error: not listed, like a missing transcript
  } finally {
    closeSync(fd);
  }
}

/** Summarise one session directory, or undefined when it has no transcript. */
export async function summarizeSession(dir: string, id: string): Promise<SessionSummary | undefined> {
  const transcript = join(dir, TRANSCRIPT_FILE);
  let fh: FileHandle;
  try {
    fh = await open(transcript, 'r');
  } catch {
    return undefined;
  }
  try {
    const { size, mtime } = await fh.stat();
    const whole = size <= WHOLE_READ_BYTES ? await readWhole(fh, size) : undefined;
    const head = whole ? headOf(whole) : await readHead(fh, size);
    const counts = whole ? countsOf(whole) : await countKinds(fh, size);
    const lastTs = whole ? lastTsOf(whole.toString('utf8'), true) : await readLastTs(fh, size);
    return summaryOf({ id, dir, transcript }, mtime, head, counts, lastTs);
  } finally {
    await fh.close();
  }
}

type Handle = Awaited<ReturnType<typeof open>>;
type Head = { started?: Extract<SessionRecord, { kind: 'session_started' }>; firstPrompt?: string };
type Counts = { users: number; compactions: number };

function summaryOf(ref: Omit<SessionRef, 'cwd'>, mtime: Date, head: Head, counts: Counts, lastTs: Date | undefined): SessionSummary {
  const started = head.started;
  const summary: SessionSummary = {
    ...ref,
    cwd: started?.cwd ?? '',
    lastActivity: lastTs ?? mtime,
    firstPrompt: oneLine(head.firstPrompt ?? '', 200),
    turns: counts.users,
    compacted: counts.compactions > 0,
  };
  if (started) {
    summary.provider = started.provider;
    summary.model = started.model;
  }
  return summary;
}

/** The whole of a small file in one buffer (not zero-filled: every byte kept is read). */
async function readWhole(fh: Handle, size: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(size);
  let got = 0;
  while (got < size) {
    const { bytesRead } = await fh.read(buf, got, size - got, got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return buf.subarray(0, got);
}

/** The head of a transcript held whole in `buf`. */
function headOf(buf: Buffer): Head {
  const out: Head = {};
  scanHead(buf, out);
  return out;
}

/**
 * Parses the complete lines of `buf` into `out` until the first user prompt: -1 once it is found,
 * else the offset of the unfinished last line (the caller prepends it to the next chunk).
 */
function scanHead(buf: Buffer, out: Head): number {
  let start = 0;
  for (let nl = buf.indexOf(0x0a); nl !== -1; nl = buf.indexOf(0x0a, start)) {
    const record = parseLine(buf.toString('utf8', start, nl));
    start = nl + 1;
    if (record?.kind === 'session_started') out.started ??= record;
    if (record?.kind === 'user_message') {
      out.firstPrompt = record.message.content;
      return -1;
    }
  }
  return start;
}

/** countKinds over a buffer holding the whole transcript. */
function countsOf(buf: Buffer): Counts {
  return { users: occurrences(buf, USER_KIND, 0), compactions: occurrences(buf, COMPACTION_KIND, 0) };
}

/**
 * scanHead over chunks read from the start, until the first user prompt or HEAD_LIMIT bytes: a
 * prompt line the limit cuts is shown from its part read, so a pasted 20 MB prompt is not parsed.
 */
async function readHead(fh: Handle, size: number): Promise<Head> {
  const out: Head = {};
  let pending = Buffer.alloc(0);
  let pos = 0;
  while (pos < size && pos < HEAD_LIMIT) {
    // Grow the read with the unfinished line, so a long first line costs O(n), not O(n²).
    const chunk = Buffer.allocUnsafe(Math.min(Math.max(HEAD_BYTES, pending.length), size - pos, HEAD_LIMIT - pos));
    const { bytesRead } = await fh.read(chunk, 0, chunk.length, pos);
    if (bytesRead === 0) break;
    pos += bytesRead;
    pending = pending.length ? Buffer.concat([pending, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
    const rest = scanHead(pending, out);
    if (rest === -1) return out;
    pending = pending.subarray(rest);
  }
  // The limit cut the line; one the end of the file cuts (a torn write) is no prompt.
  if (pos < size && pending.length > 0) out.firstPrompt = promptOfCutLine(pending);
  return out;
}

/** Count user prompts and compactions with a byte scan (chunks overlap so no match is split). */
async function countKinds(fh: Handle, size: number): Promise<Counts> {
  const overlap = Math.max(USER_KIND.length, COMPACTION_KIND.length) - 1;
  let users = 0;
  let compactions = 0;
  await scanChunks(fh, size, SCAN_BYTES, overlap, (view, seen) => {
    users += occurrences(view, USER_KIND, seen);
    compactions += occurrences(view, COMPACTION_KIND, seen);
    return false;
  });
  return { users, compactions };
}

/** Matches of `needle` in `hay` that end after `fresh` (those inside the overlap were counted). */
function occurrences(hay: Buffer, needle: Buffer, fresh: number): number {
  let n = 0;
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + 1)) {
    if (i + needle.length > fresh) n++;
  }
  return n;
}

/** The `ts` of the last valid complete line within the tail window, if any. */
async function readLastTs(fh: Handle, size: number): Promise<Date | undefined> {
  const from = Math.max(0, size - TAIL_BYTES);
  const buf = Buffer.allocUnsafe(size - from);
  const { bytesRead } = await fh.read(buf, 0, buf.length, from);
  return lastTsOf(buf.toString('utf8', 0, bytesRead), from === 0);
}

/** The `ts` of the last valid complete line of `text`; its first line only when it starts the file. */
function lastTsOf(text: string, fromStart: boolean): Date | undefined {
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= (fromStart ? 0 : 1); i--) {
    const record = parseLine(lines[i]);
    if (record) {
      const date = new Date(record.ts);
      if (!Number.isNaN(date.getTime())) return date;
    }
  }
  return undefined;
}

async function subdirs(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return [];
  }
}
