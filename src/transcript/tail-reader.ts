import { open, type FileHandle } from 'node:fs/promises';
import { currentModel } from './projection.js';
import { describeProblems, loadTranscript, parseFrom, TranscriptParser, type LoadedTranscript } from './reader.js';
import { TRANSCRIPT_FORMAT, validateRecord, type SessionRecord } from './records.js';

/**
 * Opening a session to continue it without reading what its last compaction replaced.
 *
 * The model history starts at the last `compaction_applied` (src/transcript/projection.ts), so the
 * records before that compaction's batch are not needed for the next request. A backward scan
 * from the end finds the last line holding the `"kind":"compaction_applied"` byte pattern (exact
 * for files Keen wrote: a `"` inside a JSON string is always escaped), steps back to the first
 * line of its batch, and the ordinary tolerant parser reads forward from there, seeded with the
 * seq before the batch and the file's format (from its first line). From the batch on, the parser
 * is then in the state a full load would be in, so it accepts and skips exactly the same lines.
 *
 * Whenever that cannot be shown cheaply, it falls back to `loadTranscript` (today's full load):
 * no compaction, a first line that is not `session_started`, a record before the compaction's
 * batch whose seq is not the one just before it, a compaction whose batch did not load whole, any seq problem after the anchor (a raised or repeated seq may involve records
 * before it), a rewind (`undo` with `conversation_to_seq`) to a message before the anchor, or no model to resume with (a compaction written before the store stamped it, and
 * no `model_changed` after it).
 *
 * Damaged lines before the anchor do not change the history and are not read here: they are
 * reported when the whole transcript is loaded (replay, audit).
 */

/** A transcript read for continuing it: `records` may start at the last compaction's batch. */
export interface TailTranscript extends LoadedTranscript {
  /** True when `records` start at the last compaction's batch (earlier records were not read). */
  partial: boolean;
  /** The provider and model in effect at the end of the transcript, when known. */
  model?: { provider: string; model: string };
  /** Byte offset of the first line read (0 unless `partial`). */
  start: number;
}

const PATTERN = Buffer.from('"kind":"compaction_applied"');
const BACK_CHUNK = 1 << 20;
const HEAD_BYTES = 64 << 10;
const NEWLINE = 0x0a;

/** Load what continuing the session needs: from the last compaction on, or everything. */
export async function loadTranscriptTail(path: string): Promise<TailTranscript> {
  const fh = await open(path, 'r');
  let tail: TailTranscript | undefined;
  try {
    tail = await readTail(fh, path);
  } finally {
    await fh.close();
  }
  if (tail) return tail;
  const full = await loadTranscript(path);
  return { ...full, partial: false, model: currentModel(full.records), start: 0 };
}

/** How much of the transcript before a fast open's records the REPL reads to show. */
export interface ShowBudget {
  /** Records at most. */
  maxRecords: number;
  /** Bytes of lines at most (tool outputs make records large). */
  maxBytes: number;
}

/**
 * The valid records before byte `offset`, read backward until `budget` is spent, in seq order:
 * what a resumed REPL shows of the conversation before the last compaction without reading a
 * 100 MB file. `complete` when the file's start was reached. The lines read go through the same
 * tolerant parser as a full load (torn batches dropped, a raised seq set aside), seeded just
 * below the lowest seq read; `damaged` counts what it skipped. Display only: the history never
 * comes from here.
 */
export async function recordsBefore(path: string, offset: number, budget: ShowBudget): Promise<{ records: SessionRecord[]; complete: boolean; damaged: number }> {
  const fh = await open(path, 'r');
  const lines: { offset: number; bytes: Buffer }[] = [];
  let bytes = 0;
  let complete = true;
  let format = TRANSCRIPT_FORMAT;
  try {
    const { size } = await fh.stat();
    const head = await firstRecord(fh, size);
    if (head?.kind === 'session_started') format = head.format;
    for await (const line of linesBackward(fh, offset)) {
      if (line.bytes.every((b) => b === 0x20 || b === 0x0d || b === 0x09)) continue;
      if (lines.length >= budget.maxRecords || bytes + line.bytes.length > budget.maxBytes) {
        complete = false;
        break;
      }
      bytes += line.bytes.length + 1;
      lines.push({ offset: line.offset, bytes: Buffer.from(line.bytes) });
    }
  } finally {
    await fh.close();
  }
  lines.reverse();
  const seqs = lines.map((l) => seqOf(l.bytes)).filter((n): n is number => n !== undefined);
  const parser = new TranscriptParser(complete || seqs.length === 0 ? 0 : Math.min(...seqs) - 1, format, lines[0]?.offset ?? 0);
  for (const [i, l] of lines.entries()) parser.line(l.bytes.toString('utf8'), i + 1, l.offset, l.offset + l.bytes.length + 1, true);
  parser.finish();
  // Where the budget cut the file, a batch may be cut too: that is not damage.
  const firstKept = parser.records[0] ? lines.find((l) => seqOf(l.bytes) === parser.records[0].seq)?.offset : undefined;
  const damaged = parser.problems.filter((p) => complete || firstKept === undefined || p.offset > firstKept).length;
  return { records: parser.records, complete, damaged };
}

async function readTail(fh: FileHandle, path: string): Promise<TailTranscript | undefined> {
  const { size } = await fh.stat();
  const head = await firstRecord(fh, size);
  if (head?.kind !== 'session_started' || head.format > TRANSCRIPT_FORMAT) return undefined;
  const anchor = await findAnchor(fh, size);
  if (!anchor) return undefined;
  const parser = new TranscriptParser(anchor.firstSeq - 1, head.format, anchor.offset);
  const end = await parseFrom(fh, parser, anchor.offset);
  const first = parser.records[0];
  if (!first || first.seq !== anchor.firstSeq || !parser.records.some((r) => r.seq === anchor.seq && r.kind === 'compaction_applied')) return undefined;
  if (
    parser.problems.some(
      (p) => !p.reason.startsWith('not valid JSON') && !p.reason.startsWith('torn line') && !p.reason.startsWith('invalid record') && !p.reason.startsWith('incomplete batch'),
    )
  ) {
    return undefined;
  }
  // A rewind to a message before the anchor needs the history as it was then: read it all.
  if (parser.records.some((r) => r.kind === 'undo' && r.conversation_to_seq !== undefined && r.conversation_to_seq < anchor.firstSeq)) return undefined;
  const model = modelAtEnd(parser.records);
  if (!model) return undefined;
  const problems = parser.problems;
  if (problems.length > 0) {
    // Line numbers in warnings count from the top of the file: count the lines before the anchor.
    const before = await countLines(fh, anchor.offset);
    for (const p of problems) p.line += before;
  }
  return {
    path,
    records: parser.records,
    problems,
    warning: describeProblems(path, problems),
    size: end,
    tailStart: parser.tailStart,
    missingNewline: parser.missingNewline,
    partial: anchor.offset > 0,
    model,
    start: anchor.offset,
  };
}

/** The last `model_changed` or `session_started`, or the stamp of the last compaction after them. */
function modelAtEnd(records: readonly SessionRecord[]): { provider: string; model: string } | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (r.kind === 'model_changed' || r.kind === 'session_started') return { provider: r.provider, model: r.model };
    if (r.kind === 'compaction_applied' && r.provider !== undefined && r.model !== undefined) return { provider: r.provider, model: r.model };
  }
  return undefined;
}

async function firstRecord(fh: FileHandle, size: number): Promise<SessionRecord | undefined> {
  const buf = Buffer.allocUnsafe(Math.min(HEAD_BYTES, size));
  const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
  const nl = buf.subarray(0, bytesRead).indexOf(NEWLINE);
  if (nl === -1) return undefined;
  return parseRecord(buf.subarray(0, nl));
}

function parseRecord(bytes: Buffer): SessionRecord | undefined {
  try {
    const checked = validateRecord(JSON.parse(bytes.toString('utf8')));
    return checked.ok ? checked.record : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Walk the lines backward from the end: the last complete, valid `compaction_applied` line (a
 * torn or garbled one is passed over), the offset of the first line of its batch, and a check that
 * the line before that batch holds the seq just before it.
 */
async function findAnchor(fh: FileHandle, size: number): Promise<{ offset: number; seq: number; firstSeq: number } | undefined> {
  let found: { seq: number; firstSeq: number } | undefined;
  let anchor: { offset: number; seq: number; firstSeq: number } | undefined;
  let stepsBack = 0;
  for await (const line of linesBackward(fh, size)) {
    if (line.bytes.length === 0 || line.bytes.every((b) => b === 0x20 || b === 0x0d || b === 0x09)) continue;
    if (anchor) {
      // The record before the batch must be the seq before it: then a full load is in the same
      // state there (a repeated or raised seq around the anchor depends on earlier records).
      return parseRecord(line.bytes)?.seq === anchor.firstSeq - 1 ? anchor : undefined;
    }
    if (found) {
      if (--stepsBack > 0) continue;
      if (seqOf(line.bytes) !== found.firstSeq) return undefined;
      anchor = { offset: line.offset, ...found };
      continue;
    }
    if (line.bytes.indexOf(PATTERN) === -1) continue;
    const record = parseRecord(line.bytes);
    if (record?.kind !== 'compaction_applied') continue;
    const firstSeq = record.batch?.first_seq ?? record.seq;
    if (firstSeq > record.seq || record.seq - firstSeq >= (record.batch?.count ?? 1)) return undefined;
    if (firstSeq === record.seq) {
      anchor = { offset: line.offset, seq: record.seq, firstSeq };
      continue;
    }
    found = { seq: record.seq, firstSeq };
    stepsBack = record.seq - firstSeq;
  }
  return undefined;
}

/** The seq a line starts with (`{"seq":N,`, as Keen writes every record), or undefined. */
function seqOf(bytes: Buffer): number | undefined {
  const hit = /^\{"seq":(\d+),/.exec(bytes.toString('latin1', 0, Math.min(bytes.length, 32)));
  return hit ? Number(hit[1]) : undefined;
}

/** The file's lines from the last to the first, each with its start offset (newline excluded). */
async function* linesBackward(fh: FileHandle, size: number): AsyncGenerator<{ offset: number; bytes: Buffer }> {
  let carry = Buffer.alloc(0); // the start of the line that continues into later bytes
  let pos = size;
  while (pos > 0) {
    const from = Math.max(0, pos - BACK_CHUNK);
    const chunk = Buffer.allocUnsafe(pos - from);
    const { bytesRead } = await fh.read(chunk, 0, chunk.length, from);
    if (bytesRead < chunk.length) return; // the file shrank under us: the caller falls back
    pos = from;
    const buf = carry.length > 0 ? Buffer.concat([chunk, carry]) : chunk;
    let end = buf.length;
    // lastIndexOf with a negative start would search from the end again: stop at 0.
    for (let nl = buf.lastIndexOf(NEWLINE, end - 1); nl !== -1; nl = end > 0 ? buf.lastIndexOf(NEWLINE, end - 1) : -1) {
      yield { offset: from + nl + 1, bytes: buf.subarray(nl + 1, end) };
      end = nl;
    }
    carry = buf.subarray(0, end);
  }
  if (carry.length > 0) yield { offset: 0, bytes: carry };
}

/** How many newlines `[0, end)` holds. */
async function countLines(fh: FileHandle, end: number): Promise<number> {
  const chunk = Buffer.allocUnsafe(4 << 20);
  let n = 0;
  for (let pos = 0; pos < end; ) {
    const { bytesRead } = await fh.read(chunk, 0, Math.min(chunk.length, end - pos), pos);
    if (bytesRead === 0) break;
    pos += bytesRead;
    const view = chunk.subarray(0, bytesRead);
    for (let i = view.indexOf(NEWLINE); i !== -1; i = view.indexOf(NEWLINE, i + 1)) n++;
  }
  return n;
}
