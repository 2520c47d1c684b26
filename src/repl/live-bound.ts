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
import { terminalText } from '../security/terminal-text.js';
import { displayWidth } from './text-width.js';

/** Rows kept free between the frame and the terminal's height (Ink's limit is `rows - 1`). */
export const FRAME_MARGIN = 1;
/** Rows the whole live frame may take in a terminal of `rows` rows (at least one; in a terminal of 2 rows or fewer Ink's limit cannot be kept). */
export function frameRows(rows: number): number {
  return Math.max(1, rows - 1 - FRAME_MARGIN);
}

/**
 * Rows `text` takes when word-wrapped at `width` columns (as Ink's wrap-ansi does: words moved
 * to the next row, a word wider than a row broken). An empty line is one row.
 */
export function wrapRows(text: string, width: number): number {
  const w = Math.max(1, width);
  let rows = 0;
  // Measured as drawn: tabs expanded, control characters as their escapes.
  for (const line of terminalText(text).split('\n')) {
    rows++;
    let used = 0;
    for (const word of line.split(' ')) {
      const ww = displayWidth(word);
      const at = used === 0 ? 0 : used + 1;
      if (at + ww <= w) {
        used = at + ww;
        continue;
      }
      if (ww <= w) {
        rows++;
        used = ww;
        continue;
      }
      // A word wider than a row is broken: from where the row stands (wrap-ansi's `hard`), unless
      // starting on a new row takes fewer breaks.
      const startHere = 1 + Math.floor((ww - (w - at) - 1) / w);
      const startNext = Math.floor((ww - 1) / w);
      let from = at;
      if (startNext < startHere || at >= w) {
        rows++;
        from = 0;
      }
      rows += Math.ceil((from + ww) / w) - 1;
      used = (from + ww) % w || w;
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
  /**
   * Rows the shown lines may take: set when even the last line alone is taller than the rows left
   * under the marker (a long paragraph still streaming): the view shows its last `rows` rows.
   */
  cutTo?: number;
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
  if (room <= 0) return { shown: [], hidden: lines.length };
  let from = lines.length;
  let used = 0;
  while (from > 0 && used + rows[from - 1] <= room) used += rows[--from];
  if (from < lines.length) return { shown: lines.slice(from), hidden: from };
  return { shown: lines.slice(-1), hidden: lines.length - 1, cutTo: room };
}

/** Rows per line object and width: held lines keep their objects between deltas (live-turn.tsx). */
const rowsCache = new WeakMap<MarkdownLine, { width: number; rows: number }>();

function cachedRows(line: MarkdownLine, width: number): number {
  const hit = rowsCache.get(line);
  if (hit?.width === width) return hit.rows;
  const rows = markdownLineRows(line, width);
  rowsCache.set(line, { width, rows });
  return rows;
}

/** The live text's lines that fit `maxRows` rows at `columns` (two columns go to the `●` gutter). */
export function clipLiveLines(lines: readonly MarkdownLine[], columns: number, maxRows: number): TailClip<MarkdownLine> {
  if (lines.length === 0) return { shown: [], hidden: 0 };
  return clipTail(lines, (line) => cachedRows(line, columns - 2), maxRows);
}

/** The marker row above a clipped live tail. */
export function clippedAboveText(clip: TailClip<unknown>): string {
  if (clip.hidden === 0) return '… the start of this paragraph is above (in the scrollback once it ends)';
  const lines = `${clip.hidden} ${clip.hidden === 1 ? 'line' : 'lines'}`;
  return `… ${lines} above${clip.cutTo ? ' and the start of this one' : ''} (in the scrollback once this block ends)`;
}

/**
 * Rows around a permission prompt's detail (its diff or command) that do not depend on the
 * request: the running card above it (margin, header), the prompt's margins, border, title, the
 * `… +N lines` line, the footer — and two spare rows for what wraps there unmeasured (a long card
 * header or footer).
 */
const PROMPT_FIXED_ROWS = 12;
/** The hint under a permission prompt's answers. */
export const PROMPT_HINT = 'enter confirm · 1/2/3 or y/a/n · esc deny';

/**
 * How many lines of a permission prompt's detail (a diff, a bash command) it may show so the
 * question, the answers, the hint and the footer stay on screen. Counted in rows: every line as
 * it wraps at the box's inner width (less the detail's indent), the summary and the answers too.
 * At most `cap` lines; none when the terminal is too short for any (the broker has written the
 * whole detail above the prompt then).
 */
export function promptDetailLines(opts: { rows: number; columns: number; summary: string; options: readonly string[]; lines: readonly string[]; cap: number }): number {
  const inner = Math.max(1, opts.columns - 4);
  const asked = wrapRows(opts.summary, inner) + opts.options.reduce((n, o) => n + wrapRows(`❯ 1. ${o}`, inner), 0) + wrapRows(PROMPT_HINT, inner);
  let room = frameRows(opts.rows) - PROMPT_FIXED_ROWS - asked;
  let shown = 0;
  while (shown < opts.lines.length && shown < opts.cap) {
    const rows = wrapRows(opts.lines[shown] || ' ', inner - 2);
    if (rows > room) break;
    room -= rows;
    shown++;
  }
  return shown;
}

/** Rows around a picker's options: margin, border, title, the two `… more` lines, hint, footer. */
export const PICKER_FIXED_ROWS = 8;
/** Rows around the input's lines: margin, border, the two `… more lines` lines, loader, footer. */
export const INPUT_FIXED_ROWS = 8;

/** Lines a scrolling window (picker options, input lines) shows: `cap`, fewer in a short terminal, at least one. */
export function windowLines(rows: number, fixed: number, cap: number): number {
  return Math.max(1, Math.min(cap, frameRows(rows) - fixed));
}

/** Lines of a unified diff (as `DiffView` splits it). */
export function diffLineCount(diff: string): number {
  return diff.replace(/\n$/, '').split('\n').length;
}
