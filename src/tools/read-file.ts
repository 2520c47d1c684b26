import { constants, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import * as z from 'zod';
import { once } from '../core/lazy.js';
import { editorError, editorReader } from './file-access.js';
import { displayPath, fsErrorText, realPath, resolveReadPath, workspaceRoots } from './fs-guard.js';
import { clipLine } from './output-cap.js';
import { redactFormats } from '../security/secret-formats.js';
import { CANCELLED, defineTool, ToolError } from './registry.js';

export const READ_DEFAULT_LIMIT = 2000;
export const READ_MAX_CHARS = 50_000;
export const READ_MAX_LINE_CHARS = 2000;
/** Files above this size are not scanned past the wanted range, so their line count is unknown. */
const WHOLE_FILE_BYTES = 32 * 1024 * 1024;
const BINARY_SNIFF_BYTES = 8192;

const schema = once(() =>
  z.object({
    path: z.string().describe('File to read, relative to the workspace (or absolute).'),
    offset: z.number().int().min(1).optional().describe('First line to show, 1-based. Default 1.'),
    limit: z.number().int().min(1).optional().describe(`How many lines to show. Default ${READ_DEFAULT_LIMIT}.`),
  }),
);

/** A line whose end was not even kept: redacted (known formats) before it is cut, like clipLine. */
function clipKept(line: string, droppedBytes: number): string {
  const clean = redactFormats(line);
  return `${clean.slice(0, READ_MAX_LINE_CHARS)}… [${droppedBytes + Buffer.byteLength(clean.slice(READ_MAX_LINE_CHARS))} more bytes]`;
}

/** Collects the requested line range, stopping at the line limit or the character cap. */
class RangeCollector {
  readonly lines: string[] = [];
  chars = 0;
  clipped = 0;
  last = 0;
  stop: 'limit' | 'chars' | undefined;

  constructor(
    readonly first: number,
    readonly limit: number,
  ) {}

  /** Returns false once nothing more is wanted. */
  add(lineNo: number, raw: string, droppedBytes = 0): boolean {
    if (lineNo < this.first) return true;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const shown = droppedBytes > 0 ? clipKept(line, droppedBytes) : clipLine(line, READ_MAX_LINE_CHARS);
    if (shown !== line) this.clipped++;
    const text = `${String(lineNo).padStart(6)}\t${shown}`;
    if (this.lines.length > 0 && this.chars + text.length + 1 > READ_MAX_CHARS) {
      this.stop = 'chars';
      return false;
    }
    this.lines.push(text);
    this.chars += text.length + 1;
    this.last = lineNo;
    if (this.lines.length >= this.limit) {
      this.stop = 'limit';
      return false;
    }
    return true;
  }
}

function hasNul(buf: Buffer): boolean {
  return buf.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

function binaryRefusal(shown: string): ToolError {
  return new ToolError(`Refusing to read ${shown}: it is a binary file (contains NUL bytes).`);
}

/** `total` is undefined when the file was too large to count. */
function render(shown: string, c: RangeCollector, total: number | undefined, sizeBytes: number): string {
  const out = c.lines.join('\n');
  const notes: string[] = [];
  const more = total === undefined ? c.stop !== undefined : c.last < total;
  if (more) {
    const of = total === undefined ? `; the file is ${(sizeBytes / 1048576).toFixed(0)} MB, total lines not counted` : ` of ${total}`;
    const why = c.stop === 'chars' ? `Output cap of ${READ_MAX_CHARS} characters reached. ` : '';
    notes.push(`[${why}Showing lines ${c.first}-${c.last}${of}. Read more with offset=${c.last + 1}.]`);
  }
  if (c.clipped > 0)
    notes.push(`[${c.clipped === 1 ? '1 line' : `${c.clipped} lines`} longer than ${READ_MAX_LINE_CHARS} characters ${c.clipped === 1 ? 'was' : 'were'} shortened.]`);
  return notes.length > 0 ? `${out}\n${notes.join('\n')}` : out;
}

/** Bytes of one line kept at most: enough for READ_MAX_LINE_CHARS characters of any UTF-8. */
const LINE_KEEP_BYTES = READ_MAX_LINE_CHARS * 4 + 16;
const CHUNK_BYTES = 1 << 16;

/** One line's bytes, keeping at most LINE_KEEP_BYTES of them (memory stays flat on a 100 MB line). */
class LineBytes {
  private parts: Buffer[] = [];
  private kept = 0;
  total = 0;

  push(bytes: Buffer): void {
    this.total += bytes.length;
    const room = LINE_KEEP_BYTES - this.kept;
    if (room <= 0 || bytes.length === 0) return;
    const piece = bytes.length > room ? bytes.subarray(0, room) : bytes;
    this.parts.push(Buffer.from(piece));
    this.kept += piece.length;
  }

  /** The kept text and how many bytes were dropped from its end. */
  take(): { text: string; dropped: number } {
    const buf = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts);
    const out = { text: buf.toString('utf8'), dropped: this.total - this.kept };
    this.reset();
    return out;
  }

  reset(): void {
    this.parts = [];
    this.kept = 0;
    this.total = 0;
  }
}

/**
 * Read `abs` from an open descriptor in fixed chunks, linear in the file size: lines are split
 * with Buffer.indexOf and each keeps at most LINE_KEEP_BYTES. After the wanted range, files up
 * to WHOLE_FILE_BYTES are scanned on for their line count; bigger ones stop there. `signal` is
 * checked between chunks.
 */
async function readLines(fd: FileHandle, shown: string, c: RangeCollector, size: number, signal: AbortSignal): Promise<string> {
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  const line = new LineBytes();
  let lineNo = 0;
  let sniffed = false;
  let collecting = true;
  let sawBytes = false;
  let lastByteNewline = false;
  const count = size <= WHOLE_FILE_BYTES;
  for (;;) {
    if (signal.aborted) throw new ToolError(CANCELLED);
    const { bytesRead } = await fd.read(chunk, 0, CHUNK_BYTES, null);
    if (bytesRead === 0) break;
    const data = chunk.subarray(0, bytesRead);
    if (!sniffed) {
      sniffed = true;
      if (hasNul(data)) throw binaryRefusal(shown);
    }
    sawBytes = true;
    lastByteNewline = data[bytesRead - 1] === 10;
    let pos = 0;
    while (pos < bytesRead) {
      const nl = data.indexOf(10, pos);
      if (nl === -1) {
        if (collecting) line.push(data.subarray(pos));
        break;
      }
      lineNo++;
      if (collecting && lineNo < c.first) {
        line.reset();
      } else if (collecting) {
        line.push(data.subarray(pos, nl));
        const { text, dropped } = line.take();
        if (!c.add(lineNo, text, dropped)) {
          collecting = false;
          if (!count) return render(shown, c, undefined, size);
        }
      }
      pos = nl + 1;
    }
  }
  if (!sawBytes) return `(${shown} is empty)`;
  if (!lastByteNewline) {
    lineNo++;
    if (collecting) {
      const { text, dropped } = line.take();
      c.add(lineNo, text, dropped);
    }
  }
  if (c.first > lineNo) throw new ToolError(`offset ${c.first} is past the end of ${shown}, which has ${lineNo} lines.`);
  return render(shown, c, lineNo, size);
}

/** The editor's text of a file (an unsaved buffer, say) through the same collector as the disk's. */
function editorLines(text: string, shown: string, c: RangeCollector, size: number): string {
  if (text === '') return `(${shown} is empty)`;
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  for (let i = 0; i < lines.length && c.add(i + 1, lines[i]); i++);
  if (c.first > lines.length) throw new ToolError(`offset ${c.first} is past the end of ${shown}, which has ${lines.length} lines.`);
  return render(shown, c, lines.length, size);
}

function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

export const readFileTool = defineTool({
  name: 'read_file',
  description:
    'Read a text file. Returns numbered lines ("  12\\tcode"); the numbers are not part of the file. ' +
    `Shows up to ${READ_DEFAULT_LIMIT} lines or ${READ_MAX_CHARS} characters from offset; a note at the end says ` +
    'what was cut and which offset to read next. Relative paths must stay inside the workspace; absolute ' +
    'paths may be read anywhere. Binary files are refused. Use list_dir for directories.',
  schema,
  mutating: false,
  concurrent: true,
  async describe(args, ctx) {
    const abs = resolveReadPath(ctx.cwd, args.path, workspaceRoots(ctx));
    return { tool: 'read_file', summary: `read ${displayPath(ctx.cwd, abs)}`, access: 'read', paths: [await realPath(abs)] };
  },
  async run(args, ctx) {
    const abs = resolveReadPath(ctx.cwd, args.path, workspaceRoots(ctx));
    const shown = displayPath(ctx.cwd, abs);
    const real = await realPath(abs);
    const info = await stat(real).catch((err: unknown) => {
      throw new ToolError(fsErrorText(err, shown));
    });
    if (info.isDirectory()) throw new ToolError(`${shown} is a directory; use list_dir to see what is inside.`);
    if (!info.isFile()) throw new ToolError(`Refusing to read ${shown}: it is ${kindOf(info)}, not a regular file.`);
    const collector = new RangeCollector(args.offset ?? 1, args.limit ?? READ_DEFAULT_LIMIT);
    let fd: FileHandle | undefined;
    try {
      // O_NONBLOCK: a FIFO swapped in after the stat cannot hang the open; fstat checks again.
      fd = await open(real, constants.O_RDONLY | constants.O_NONBLOCK);
      const now = await fd.stat();
      if (!now.isFile()) throw new ToolError(`Refusing to read ${shown}: it is ${kindOf(now)}, not a regular file.`);
      const editor = await editorReader(ctx, real);
      if (!editor) return await readLines(fd, shown, collector, now.size, ctx.signal);
      const head = Buffer.alloc(BINARY_SNIFF_BYTES);
      const { bytesRead } = await fd.read(head, 0, BINARY_SNIFF_BYTES, 0);
      if (hasNul(head.subarray(0, bytesRead))) throw binaryRefusal(shown);
      const text = await editor(real, ctx.signal).catch((err: unknown) => {
        throw editorError(err, 'read', shown);
      });
      return editorLines(text, shown, collector, Buffer.byteLength(text));
    } catch (err) {
      if (err instanceof ToolError) throw err;
      throw new ToolError(fsErrorText(err, shown));
    } finally {
      await fd?.close().catch(() => undefined);
    }
  },
});
