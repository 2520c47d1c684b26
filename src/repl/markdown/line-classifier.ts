/**
 * The streaming path: Markdown of the block still being written, one line at a time. The live
 * part of the screen decides how a line looks from the line itself and a small carried state (an
 * open code fence and the highlighter's state inside it); finished blocks are rendered from
 * marked's token tree instead (`markdown-lines.ts`). The classifier also tells the finished path
 * where blocks start and end (fences, list runs, table rows). Soft line breaks are kept as they
 * are: a terminal answer reads better with the model's own line breaks. Pure; never throws.
 */
import { highlightLine, languageOf, type HighlightState, type Token } from './highlight.js';
import { parseInline, type Span } from './inline.js';
import { parseTable, type TableLine } from './table-block.js';

/** What is open at the end of the lines classified so far. */
export interface MarkdownState {
  fence?: { marker: string; lang?: string; highlight: HighlightState };
}

export type MarkdownLine =
  | { kind: 'blank' }
  | { kind: 'heading'; level: number; spans: Span[] }
  | { kind: 'item'; indent: number; bullet: string; spans: Span[] }
  | { kind: 'quote'; spans: Span[] }
  | { kind: 'rule' }
  | { kind: 'fence'; lang?: string; info: string; open: boolean }
  | { kind: 'code'; tokens: Token[] }
  /** One table row as it streams in (held back until the table ends, then replaced). */
  | { kind: 'table-row'; cells: string[]; separator: boolean }
  /** A finished table, parsed by marked. */
  | TableLine
  | { kind: 'text'; spans: Span[] };

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`]*)$/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TASK = /^\[([ xX])\]\s+(.*)$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}>\s?(.*)$/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;

/** Classify one line (without its newline) and return the state for the next line. */
export function classifyLine(line: string, state: MarkdownState): { line: MarkdownLine; state: MarkdownState } {
  const text = line.replace(/\r$/, '');
  const fence = state.fence;
  if (fence) {
    const close = FENCE.exec(text);
    if (close && close[1][0] === fence.marker[0] && close[1].length >= fence.marker.length && !close[2].trim()) {
      return { line: { kind: 'fence', info: '', open: false }, state: {} };
    }
    const { tokens, state: highlight } = highlightLine(text, fence.lang, fence.highlight);
    return { line: { kind: 'code', tokens }, state: { fence: { ...fence, highlight } } };
  }
  const open = FENCE.exec(text);
  if (open) {
    const info = open[2].trim();
    const lang = languageOf(info);
    return { line: { kind: 'fence', lang, info, open: true }, state: { fence: { marker: open[1], lang, highlight: {} } } };
  }
  if (!text.trim()) return { line: { kind: 'blank' }, state };
  const heading = HEADING.exec(text);
  if (heading) return { line: { kind: 'heading', level: heading[1].length, spans: parseInline(heading[2]) }, state };
  if (RULE.test(text)) return { line: { kind: 'rule' }, state };
  const item = ITEM.exec(text);
  if (item) {
    const indent = Math.floor(item[1].replace(/\t/g, '    ').length / 2);
    const numbered = /\d/.test(item[2][0]);
    const task = TASK.exec(item[3]);
    const bullet = task ? (task[1] === ' ' ? '☐' : '☑') : numbered ? item[2] : '•';
    return { line: { kind: 'item', indent, bullet, spans: parseInline(task ? task[2] : item[3]) }, state };
  }
  const quote = QUOTE.exec(text);
  if (quote) return { line: { kind: 'quote', spans: parseInline(quote[1]) }, state };
  if (text.trim().startsWith('|') && text.trim().endsWith('|') && text.trim().length > 1) {
    if (TABLE_SEPARATOR.test(text)) return { line: { kind: 'table-row', cells: [], separator: true }, state };
    const cells = text
      .trim()
      .slice(1, -1)
      .split('|')
      .map((c) => c.trim());
    return { line: { kind: 'table-row', cells, separator: false }, state };
  }
  return { line: { kind: 'text', spans: parseInline(text) }, state };
}

/**
 * Classify lines of the block being written, in order, threading the state. A run of table rows
 * is shown as a table as soon as marked reads one (it is held back until it ends).
 */
export function classifyStreaming(lines: readonly string[], state: MarkdownState): { lines: MarkdownLine[]; state: MarkdownState } {
  const out: MarkdownLine[] = [];
  let current = state;
  let run: string[] = [];
  const endRun = () => {
    if (run.length === 0) return;
    const table = parseTable(run);
    if (table) out.splice(out.length - run.length, run.length, table);
    run = [];
  };
  for (const line of lines) {
    const r = classifyLine(line, current);
    if (r.line.kind === 'table-row') run.push(line);
    else endRun();
    out.push(r.line);
    current = r.state;
  }
  endRun();
  return { lines: out, state: current };
}
