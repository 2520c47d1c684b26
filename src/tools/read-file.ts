import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import { displayPath, fsErrorText, resolveReadPath } from './fs-guard.js';
import { clipLine } from './output-cap.js';
import { defineTool, ToolError } from './registry.js';

export const READ_DEFAULT_LIMIT = 2000;
export const READ_MAX_CHARS = 50_000;
export const READ_MAX_LINE_CHARS = 2000;
/** Files above this size are streamed and their total line count is not computed. */
const WHOLE_FILE_BYTES = 32 * 1024 * 1024;
const BINARY_SNIFF_BYTES = 8192;

const schema = z.object({
  path: z.string().describe('File to read, relative to the workspace (or absolute).'),
  offset: z.number().int().min(1).optional().describe('First line to show, 1-based. Default 1.'),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`How many lines to show. Default ${READ_DEFAULT_LIMIT}.`),
});

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
  add(lineNo: number, raw: string): boolean {
    if (lineNo < this.first) return true;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const shown = clipLine(line, READ_MAX_LINE_CHARS);
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
  if (c.clipped > 0) notes.push(`[${c.clipped === 1 ? '1 line' : `${c.clipped} lines`} longer than ${READ_MAX_LINE_CHARS} characters ${c.clipped === 1 ? 'was' : 'were'} shortened.]`);
  return notes.length > 0 ? `${out}\n${notes.join('\n')}` : out;
}

async function readWhole(abs: string, shown: string, c: RangeCollector, size: number): Promise<string> {
  const buf = await readFile(abs);
  if (hasNul(buf)) throw binaryRefusal(shown);
  const text = buf.toString('utf8');
  if (text === '') return `(${shown} is empty)`;
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (c.first > lines.length) {
    throw new ToolError(`offset ${c.first} is past the end of ${shown}, which has ${lines.length} lines.`);
  }
  for (let k = c.first - 1; k < lines.length; k++) if (!c.add(k + 1, lines[k])) break;
  return render(shown, c, lines.length, size);
}

async function readStreaming(abs: string, shown: string, c: RangeCollector, size: number): Promise<string> {
  const stream = createReadStream(abs, { highWaterMark: 1 << 16 });
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let lineNo = 0;
  let sniffed = false;
  let done = false;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (!sniffed) {
        sniffed = true;
        if (hasNul(chunk)) throw binaryRefusal(shown);
      }
      pending += decoder.write(chunk);
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      for (const part of parts) {
        if (!c.add(++lineNo, part)) {
          done = true;
          break;
        }
      }
      if (done) break;
    }
  } finally {
    stream.destroy();
  }
  if (!done && pending !== '') c.add(++lineNo, pending);
  if (!done && c.first > lineNo) {
    throw new ToolError(`offset ${c.first} is past the end of ${shown}, which has ${lineNo} lines.`);
  }
  return render(shown, c, done ? undefined : lineNo, size);
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
  async run(args, ctx) {
    const abs = resolveReadPath(ctx.cwd, args.path);
    const shown = displayPath(ctx.cwd, abs);
    const info = await stat(abs).catch((err: unknown) => {
      throw new ToolError(fsErrorText(err, shown));
    });
    if (info.isDirectory()) throw new ToolError(`${shown} is a directory; use list_dir to see what is inside.`);
    const collector = new RangeCollector(args.offset ?? 1, args.limit ?? READ_DEFAULT_LIMIT);
    try {
      return info.size > WHOLE_FILE_BYTES
        ? await readStreaming(abs, shown, collector, info.size)
        : await readWhole(abs, shown, collector, info.size);
    } catch (err) {
      if (err instanceof ToolError) throw err;
      throw new ToolError(fsErrorText(err, shown));
    }
  },
});
