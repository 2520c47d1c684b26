/**
 * How tall the live (non-`<Static>`) frame may be, and what of it is shown when it would be
 * taller. Pure: rows and columns in, lines out.
 *
 * Why: Ink (6.8, `ink.js` `onRender`) treats a frame of `stdout.rows` rows or more as
 * "fullscreen": on the next render it writes `clearTerminal` (erase screen AND scrollback) plus
 * its private record of every `<Static>` output, then the frame — on every frame. The terminal's
 * earlier scrollback (lines printed before keen, a long replay keen wrote as plain text) is wiped
 * and the screen flickers. So the live frame is kept below the terminal's height; what does not
 * fit is clipped here, and reaches the scrollback (through `<Static>`) once it is final.
 */
import type { MarkdownLine } from './markdown/markdown-lines.js';
import { layoutTable } from './markdown/table-block.js';
import { displayWidth } from './text-width.js';

/** Rows kept free between the frame and the terminal's height (Ink's limit is `rows - 1`). */
export const FRAME_MARGIN = 1;
/** The frame is never bounded below this (a terminal this short cannot show a prompt anyway). */
export const MIN_FRAME_ROWS = 4;

/** Rows the whole live frame may take in a terminal of `rows` rows. */
export function frameRows(rows: number): number {
  return Math.max(MIN_FRAME_ROWS, rows - 1 - FRAME_MARGIN);
}

/**
 * Rows `text` takes when word-wrapped at `width` columns (as Ink's wrap-ansi does: words moved
 * to the next row, a word wider than a row broken). An empty line is one row.
 */
export function wrapRows(text: string, width: number): number {
  const w = Math.max(1, width);
  let rows = 0;
  for (const line of text.split('\n')) {
    rows++;
    let used = 0;
    for (const word of line.split(' ')) {
      const ww = displayWidth(word);
      const need = used === 0 ? ww : used + 1 + ww;
      if (need <= w) {
        used = need;
        continue;
      }
      if (used > 0) rows++;
      // A word wider than the row fills whole rows, the rest starts the next.
      rows += Math.max(0, Math.ceil(ww / w) - 1);
      used = ww % w === 0 && ww > 0 ? w : ww % w;
    }
  }
  return rows;
}

const spansText = (spans: readonly { text: string }[]) => spans.map((s) => s.text).join('');

/** Rows one streamed Markdown line takes at `width` columns (as `MarkdownView` draws it). */
export function markdownLineRows(line: MarkdownLine, width: number): number {
  switch (line.kind) {
    case 'blank':
    case 'rule':
      return 1;
    case 'fence':
      return line.open && line.info ? 1 : 0;
    case 'heading':
    case 'text':
      return wrapRows(spansText(line.spans), width);
    case 'quote':
      return wrapRows(spansText(line.spans), width - 2);
    case 'item':
      return wrapRows(spansText(line.spans), width - line.indent * 2 - displayWidth(line.bullet) - 1);
    case 'code':
      return wrapRows(spansText(line.tokens), width - 2);
    case 'table-row':
      return line.separator ? 1 : wrapRows(line.cells.join(' │ '), width);
    case 'table': {
      const laid = layoutTable(line);
      return wrapRows([laid.header, laid.rule, ...laid.rows].join('\n'), width);
    }
  }
}

export interface TailClip<T> {
  /** The last lines that fit (with the marker row when something was clipped). */
  shown: T[];
  /** Lines clipped from the top (0: everything fits, no marker). */
  hidden: number;
}

/**
 * The tail of `lines` that fits `maxRows` rows. When not all fit, one row goes to a marker above
 * the tail (`… N lines above`). The last line is always shown, even if taller than the rows left
 * (the frame's own clip cuts it then).
 */
export function clipTail<T>(lines: readonly T[], rowsOf: (line: T) => number, maxRows: number): TailClip<T> {
  const rows = lines.map(rowsOf);
  const total = rows.reduce((a, b) => a + b, 0);
  if (total <= maxRows) return { shown: [...lines], hidden: 0 };
  const room = maxRows - 1;
  let from = lines.length;
  let used = 0;
  while (from > 0 && used + rows[from - 1] <= room) used += rows[--from];
  if (from === lines.length && lines.length > 0 && room > 0) from--;
  return { shown: lines.slice(from), hidden: from };
}

/** The live text's lines that fit `maxRows` rows at `columns` (two columns go to the `●` gutter). */
export function clipLiveLines(lines: readonly MarkdownLine[], columns: number, maxRows: number): TailClip<MarkdownLine> {
  return clipTail(lines, (line) => markdownLineRows(line, columns - 2), maxRows);
}

/** The marker row above a clipped live tail. */
export function clippedAboveText(hidden: number): string {
  return `… ${hidden} ${hidden === 1 ? 'line' : 'lines'} above (in the scrollback once this block ends)`;
}

/** Rows of a permission prompt without its diff: margins, border, title, options, hint, footer. */
const PROMPT_FIXED_ROWS = 12;
/** Fewest diff lines a prompt shows, however short the terminal. */
export const MIN_PROMPT_DIFF_LINES = 3;

/**
 * How many diff lines a permission prompt may show so the whole prompt (question, options, hint)
 * and the footer stay on screen: the frame's rows minus the prompt's other rows (its summary and
 * options wrapped at the box's inner width), at most `cap`.
 */
export function promptDiffLines(opts: { rows: number; columns: number; summary: string; options: readonly string[]; cap: number }): number {
  const inner = opts.columns - 4;
  const wrapped = wrapRows(opts.summary, inner) - 1 + opts.options.reduce((n, o) => n + wrapRows(`❯ 1. ${o}`, inner) - 1, 0);
  const room = frameRows(opts.rows) - PROMPT_FIXED_ROWS - wrapped;
  return Math.max(MIN_PROMPT_DIFF_LINES, Math.min(opts.cap, room));
}

/** Lines of a unified diff (as `DiffView` splits it). */
export function diffLineCount(diff: string): number {
  return diff.replace(/\n$/, '').split('\n').length;
}
