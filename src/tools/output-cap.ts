/**
 * Keeps the head and the tail of a stream of text and counts what falls between, so a tool can
 * return bounded output that still says exactly how much was cut.
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
    const room = this.headChars - this.head.length;
    if (room > 0) {
      this.head += text.slice(0, room);
      text = text.slice(room);
      if (text === '') return;
    }
    this.tail.push(text);
    this.tailLength += text.length;
    while (this.tail.length > 1 && this.tailLength - this.tail[0].length >= this.tailChars) {
      this.tailLength -= this.tail.shift()!.length;
    }
  }

  get totalChars(): number {
    return this.total;
  }

  /** The kept text, with one `[... N lines (M characters) cut ...]` line where text was dropped. */
  text(): string {
    let tail = this.tail.join('');
    if (this.total <= this.headChars + this.tailChars) return this.head + tail;
    tail = tail.slice(tail.length - this.tailChars);
    // Cut on line boundaries when a boundary is near, so no half lines are shown.
    let head = this.head;
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

/** Shorten one line to `max` characters, saying how many were dropped. */
export function clipLine(line: string, max: number): string {
  return line.length <= max ? line : `${line.slice(0, max)}… [${line.length - max} more characters]`;
}
