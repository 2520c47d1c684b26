/**
 * A finished Markdown table, parsed with `marked` (the streaming path holds table rows back until
 * the table ends) and laid out with aligned columns measured by `string-width`, so CJK and emoji
 * cells line up; cells are sanitised (src/security/terminal-text.ts) before they are measured. Pure; never
 * throws: text that marked does not read as a table stays text.
 */
import type { Token, Tokens } from 'marked';
import { markedLexer } from './marked-lexer.js';
import stringWidth from 'string-width';
import { terminalText } from '../../security/terminal-text.js';
import { spansOf } from './marked-inline.js';

export type Align = 'left' | 'right' | 'center' | null;

export interface TableLine {
  kind: 'table';
  /** Cell texts (inline Markdown markers removed), header first. */
  header: string[];
  rows: string[][];
  align: Align[];
}

/** A cell's text as drawn (sanitised here, so the columns are measured on what the terminal shows). */
const visible = (cell: Tokens.TableCell) =>
  terminalText(
    spansOf(cell.tokens)
      .map((s) => s.text)
      .join(''),
  );

/** The table in `lines` (its rows, separator included), or undefined when marked sees none. */
export function parseTable(lines: readonly string[]): TableLine | undefined {
  let tokens: Token[];
  try {
    tokens = markedLexer().lex(lines.join('\n'), { gfm: true });
  } catch {
    return undefined;
  }
  const table = tokens.find((t) => t.type === 'table') as Tokens.Table | undefined;
  if (!table || tokens.some((t) => t.type !== 'table' && t.type !== 'space')) return undefined;
  return {
    kind: 'table',
    header: table.header.map(visible),
    rows: table.rows.map((row) => row.map(visible)),
    align: table.align,
  };
}

/** Display width of a cell (East Asian wide characters and emoji count two). */
export const cellWidth = (text: string): number => stringWidth(text);

function pad(text: string, width: number, align: Align): string {
  const gap = Math.max(0, width - cellWidth(text));
  if (align === 'right') return ' '.repeat(gap) + text;
  if (align === 'center') return ' '.repeat(Math.floor(gap / 2)) + text + ' '.repeat(Math.ceil(gap / 2));
  return text + ' '.repeat(gap);
}

/** Columns the aligned layout takes (cells and ` │ ` between them). */
export function tableColumns(table: TableLine): number {
  const columns = Math.max(table.header.length, ...table.rows.map((r) => r.length));
  let width = 3 * Math.max(0, columns - 1);
  for (let i = 0; i < columns; i++) width += Math.max(1, cellWidth(table.header[i] ?? ''), ...table.rows.map((r) => cellWidth(r[i] ?? '')));
  return width;
}

/**
 * A table too wide for the terminal, as one block per row: `header: value` a line (the value
 * wraps), so no cell is broken across the columns of others. Header cells left empty take the
 * column's number.
 */
export function tableRecords(table: TableLine): { name: string; value: string }[][] {
  return table.rows.map((row) => row.map((value, i) => ({ name: table.header[i] || `${i + 1}`, value })));
}

/** Header line, rule line and row lines with the columns aligned. */
export function layoutTable(table: TableLine): { header: string; rule: string; rows: string[] } {
  const columns = Math.max(table.header.length, ...table.rows.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, i) => Math.max(1, cellWidth(table.header[i] ?? ''), ...table.rows.map((r) => cellWidth(r[i] ?? ''))));
  const line = (cells: string[]) =>
    widths
      .map((w, i) => pad(cells[i] ?? '', w, table.align[i] ?? null))
      .join(' │ ')
      .trimEnd();
  return { header: line(table.header), rule: widths.map((w) => '─'.repeat(w)).join('─┼─'), rows: table.rows.map(line) };
}
