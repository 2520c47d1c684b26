import { open, type FileHandle } from 'node:fs/promises';
import { TRANSCRIPT_FORMAT, validateRecord, type BatchMarker, type SessionRecord } from './records.js';
import { upgradeRecord } from './upgrade.js';

/**
 * Reading a transcript: streaming, tolerant, read-only.
 *
 * A line is accepted when it is a valid record, its seq is above every seq accepted before, and —
 * for a batch record — every record of its batch is present in order. Everything else is skipped
 * and reported as a problem, never thrown: a damaged transcript loads everything else.
 */

/** One skipped stretch of the file. `line` is 1-based; `offset`/`length` are in bytes. */
export interface TranscriptProblem {
  line: number;
  offset: number;
  length: number;
  reason: string;
  /** True when the line was kept (read with a repaired seq) rather than skipped. */
  kept?: boolean;
}

export interface LoadedTranscript {
  path: string;
  records: SessionRecord[];
  problems: TranscriptProblem[];
  /** One line for the user when something was skipped, else undefined. Printed once by callers. */
  warning?: string;
  /** File size in bytes when read. */
  size: number;
  /**
   * Where the damaged tail starts: the byte offset just after the last accepted record's line.
   * Equal to `size` when the file ends with an accepted record. A writer moves `[tailStart, size)`
   * aside before appending.
   */
  tailStart: number;
  /** True when the last accepted record is complete but its newline is missing. */
  missingNewline: boolean;
}

const CHUNK_BYTES = 4 << 20;
const NEWLINE = 0x0a;

interface PendingBatch {
  marker: BatchMarker;
  records: SessionRecord[];
  lines: Omit<TranscriptProblem, 'reason'>[]; // where its lines are, reported if the batch turns out incomplete
  end: number;
  terminated: boolean;
}

/**
 * Parses and validates lines one at a time; holds back batch records until their batch is whole.
 * A parse may start mid-file (src/transcript/tail-reader.ts): `lastSeq` is then the seq just before
 * the first line, `format` the file's, and `tailStart` the offset of that line.
 */
export class TranscriptParser {
  readonly records: SessionRecord[] = [];
  readonly problems: TranscriptProblem[] = [];
  missingNewline = false;

  constructor(
    private lastSeq = 0,
    /** The transcript format, from `session_started` (older records are upgraded as read). */
    private format = TRANSCRIPT_FORMAT,
    public tailStart = 0,
  ) {}
  private pending: PendingBatch | undefined;
  /**
   * The last accepted record when its seq jumped past `lastSeq + 1`. If the next record's seq
   * falls between the two, the jump was the damage (e.g. a seq raised 4 → 40), not the records
   * after it: the jumped record is set aside and the rest keeps loading.
   */
  private jump: { record: SessionRecord; prevSeq: number; where: Omit<TranscriptProblem, 'reason'> } | undefined;

  /** `text` excludes the newline; `end` is the offset after the line (after its newline, if any). */
  line(text: string, lineNo: number, offset: number, end: number, terminated: boolean): void {
    if (text.trim() === '') return; // blank lines (e.g. a newline added after a torn line) are harmless
    const where = { line: lineNo, offset, length: end - offset };
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.skip(where, terminated ? 'not valid JSON' : 'torn line (crash mid-write)');
      return;
    }
    const checked = validateRecord(value);
    if (!checked.ok) {
      this.skip(where, `invalid record (${checked.reason})`);
      return;
    }
    if (checked.record.kind === 'session_started') this.format = checked.record.format;
    const record = upgradeRecord(checked.record, this.format);
    if (record.seq <= this.lastSeq) this.retractJump(record.seq);
    if (record.seq <= this.lastSeq) {
      this.skip(where, `seq ${record.seq} is not after ${this.lastSeq}`);
      return;
    }
    const marker = record.batch;
    const pending = this.pending;
    if (pending && marker && sameBatch(pending.marker, marker) && record.seq === pending.marker.first_seq + pending.records.length) {
      pending.records.push(record);
      pending.lines.push(where);
      pending.end = end;
      pending.terminated = terminated;
      if (pending.records.length === marker.count) this.commitPending();
      return;
    }
    if (pending) this.dropPending();
    if (!marker) {
      const prevSeq = this.lastSeq;
      this.accept(record, end, terminated);
      this.jump = record.seq > prevSeq + 1 && prevSeq > 0 ? { record, prevSeq, where } : undefined;
      return;
    }
    if (record.seq !== marker.first_seq || marker.first_seq <= this.lastSeq) {
      this.skip(where, `record ${record.seq} belongs to a batch whose start is missing`);
      return;
    }
    this.pending = { marker, records: [record], lines: [where], end, terminated };
  }

  /**
   * Called with the seq of a record that does not rise above the last accepted one. When that
   * last record was a jump and `seq` fits between the jump's predecessor and the jump, the jump
   * is the damaged record: it is taken back. It stays in the file either way; when it sits
   * exactly in the gap (…3, 40, 5…) it is read as the missing seq, else it is skipped.
   */
  private retractJump(seq: number): void {
    const jump = this.jump;
    this.jump = undefined;
    if (!jump || this.records[this.records.length - 1] !== jump.record || seq <= jump.prevSeq) return;
    this.records.pop();
    this.lastSeq = jump.prevSeq;
    const bad = jump.record.seq;
    if (seq === jump.prevSeq + 2) {
      const repaired = { ...jump.record, seq: jump.prevSeq + 1 };
      this.records.push(repaired);
      this.lastSeq = repaired.seq;
      this.problems.push({ ...jump.where, reason: `seq ${bad} out of order between ${jump.prevSeq} and ${seq}; read as seq ${repaired.seq}`, kept: true });
      return;
    }
    this.problems.push({ ...jump.where, reason: `seq ${bad} out of order after ${jump.prevSeq}; left in place` });
  }

  finish(): void {
    if (this.pending) this.dropPending();
  }

  private accept(record: SessionRecord, end: number, terminated: boolean): void {
    this.records.push(record);
    this.lastSeq = record.seq;
    this.tailStart = end;
    this.missingNewline = !terminated;
  }

  private commitPending(): void {
    this.jump = undefined;
    const p = this.pending!;
    this.pending = undefined;
    for (const r of p.records) this.records.push(r);
    this.lastSeq = p.records[p.records.length - 1].seq;
    this.tailStart = p.end;
    this.missingNewline = !p.terminated;
  }

  private dropPending(): void {
    const p = this.pending!;
    this.pending = undefined;
    const reason = `incomplete batch (${p.records.length} of ${p.marker.count} records from seq ${p.marker.first_seq})`;
    for (const where of p.lines) this.problems.push({ ...where, reason });
  }

  private skip(where: Omit<TranscriptProblem, 'reason'>, reason: string): void {
    this.problems.push({ ...where, reason });
  }
}

function sameBatch(a: BatchMarker, b: BatchMarker): boolean {
  return a.first_seq === b.first_seq && a.count === b.count;
}

/**
 * Load a transcript. Never throws for damaged content (see `problems`/`warning`); throws only
 * when the file cannot be read at all (ENOENT, EACCES). Reads in 4 MB chunks so peak memory is the
 * records plus one chunk, not a copy of the whole file.
 */
export async function loadTranscript(path: string): Promise<LoadedTranscript> {
  const parser = new TranscriptParser();
  const fh = await open(path, 'r');
  let size = 0;
  try {
    size = await parseFrom(fh, parser, 0);
  } finally {
    await fh.close();
  }
  const { records, problems, tailStart, missingNewline } = parser;
  return { path, records, problems, warning: describeProblems(path, problems), size, tailStart, missingNewline };
}

/**
 * Feed the lines of `fh` from byte `from` (a line start) to the end into `parser`, in 4 MB
 * chunks; line numbers count from 1 at `from`. Returns the file size read.
 */
export async function parseFrom(fh: FileHandle, parser: TranscriptParser, from: number): Promise<number> {
  let size = from;
  {
    let carry: Buffer[] = []; // bytes of a line that continues into the next chunk(s)
    let carryOffset = 0;
    let lineNo = 0;
    let position = from;
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    for (;;) {
      const { bytesRead } = await fh.read(chunk, 0, CHUNK_BYTES, position);
      if (bytesRead === 0) break;
      const base = position;
      position += bytesRead;
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(NEWLINE, start);
        if (nl === -1 || nl >= bytesRead) break;
        lineNo++;
        if (carry.length > 0) {
          const whole = Buffer.concat([...carry, chunk.subarray(0, nl)]);
          parser.line(whole.toString('utf8'), lineNo, carryOffset, base + nl + 1, true);
          carry = [];
        } else {
          parser.line(chunk.toString('utf8', start, nl), lineNo, base + start, base + nl + 1, true);
        }
        start = nl + 1;
      }
      if (start < bytesRead) {
        if (carry.length === 0) carryOffset = base + start;
        carry.push(Buffer.from(chunk.subarray(start, bytesRead))); // copy: `chunk` is reused
      }
    }
    size = position;
    if (carry.length > 0) parser.line(Buffer.concat(carry).toString('utf8'), lineNo + 1, carryOffset, size, false);
    parser.finish();
  }
  return size;
}

/** One line summarising what was skipped, or undefined when nothing was. */
export function describeProblems(path: string, problems: readonly TranscriptProblem[]): string | undefined {
  if (problems.length === 0) return undefined;
  const first = problems[0];
  const more = problems.length > 1 ? ` and ${problems.length - 1} more` : '';
  return `${path}: ${first.kept ? 'repaired' : 'skipped'} damaged line ${first.line} (${first.reason})${more}; the rest of the session loaded`;
}
