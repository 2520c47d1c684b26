import { redactFormats } from '../security/secret-formats.js';

/**
 * Characters kept beyond each cut so a credential straddling it is still whole when it is
 * redacted: longer than any key format (a JWT of a few KB excepted, of which the header is left).
 */
export const REDACT_SLACK_CHARS = 4096;

/**
 * Keeps the head and the tail of a stream of text and counts what falls between, so a tool can
 * return bounded output that still says exactly how much was cut. When it cuts, known credential
 * formats are redacted BEFORE the cut (with REDACT_SLACK_CHARS of context on each side), so a
 * token cut in half cannot leak the half the store's redaction would no longer recognise. Output
 * returned whole is left as it is (the store redacts it).
 */
export class HeadTailBuffer {
  private head = '';
  private tail: string[] = [];
  private tailLength = 0;
  private total = 0;
  private newlines = 0;

  constructor(
    private readonly headChars: number,
    private readonly tailChars: number,
  ) {}

  push(text: string): void {
    if (text === '') return;
    this.total += text.length;
    for (let k = text.indexOf('\n'); k !== -1; k = text.indexOf('\n', k + 1)) this.newlines++;
    const room = this.headChars + REDACT_SLACK_CHARS - this.head.length;
    if (room > 0) {
      this.head += text.slice(0, room);
      text = text.slice(room);
      if (text === '') return;
    }
    this.tail.push(text);
    this.tailLength += text.length;
    while (this.tail.length > 1 && this.tailLength - this.tail[0].length >= this.tailChars + REDACT_SLACK_CHARS) {
      this.tailLength -= this.tail.shift()!.length;
    }
  }

  get totalChars(): number {
    return this.total;
  }

  /** The kept text, with one `[... N lines (M characters) cut ...]` line where text was dropped. */
  text(): string {
    const kept = this.tail.join('');
    if (this.total <= this.headChars + this.tailChars) return this.head + kept;
    // Redact first, then cut: each region reaches REDACT_SLACK_CHARS past its cut.
    const whole = kept.length < this.tailChars + REDACT_SLACK_CHARS; // nothing was dropped yet
    const tailRegion = (whole ? this.head + kept : kept).slice(-(this.tailChars + REDACT_SLACK_CHARS));
    let tail = redactFormats(tailRegion).slice(-this.tailChars);
    // Cut on line boundaries when a boundary is near, so no half lines are shown.
    let head = redactFormats(this.head).slice(0, this.headChars);
    const headBreak = head.lastIndexOf('\n');
    if (headBreak >= head.length - 500 && headBreak >= 0) head = head.slice(0, headBreak + 1);
    const tailBreak = tail.indexOf('\n');
    if (tailBreak >= 0 && tailBreak < 500) tail = tail.slice(tailBreak + 1);
    const cutChars = this.total - head.length - tail.length;
    const cutLines = Math.max(0, this.newlines - countNewlines(head) - countNewlines(tail));
    const marker = `[... ${cutLines} lines (${cutChars} characters) cut from the middle of the output ...]\n`;
    return head + (head.endsWith('\n') || head === '' ? '' : '\n') + marker + tail;
  }
}

export function countNewlines(text: string): number {
  let n = 0;
  for (let k = text.indexOf('\n'); k !== -1; k = text.indexOf('\n', k + 1)) n++;
  return n;
}

/**
 * Shorten one line to `max` characters, saying how many were dropped. A line that is cut has its
 * known credential formats redacted first, so the cut cannot leave half a token.
 */
export function clipLine(line: string, max: number): string {
  if (line.length <= max) return line;
  const clean = redactFormats(line);
  return clean.length <= max ? clean : `${clean.slice(0, max)}… [${clean.length - max} more characters]`;
}

/** How much of a running command's output a live tool card gets. */
export const LIVE_TAIL_CHARS = 4000;

/**
 * The last `chars` characters of a running command's output, handed to `emit` at most once per
 * `intervalMs` (a tool card shows the last lines live; it needs neither every chunk nor all of it).
 */
export class LiveTail {
  private text = '';
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly emit: (tail: string) => void,
    private readonly chars = LIVE_TAIL_CHARS,
    private readonly intervalMs = 100,
  ) {}

  push(text: string): void {
    if (text === '' || this.stopped) return;
    this.text = (this.text + text.slice(-this.chars)).slice(-this.chars);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      if (!this.stopped) this.emit(this.text);
    }, this.intervalMs);
    this.timer.unref();
  }

  /** No emit after this (the result replaces the live tail). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
