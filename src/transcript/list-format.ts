/**
 * `keen sessions`' table: one session per line, relative times, the first prompt cut to its
 * column. Pure: rows in, text out.
 */
import { oneLine } from '../core/one-line.js';
import type { SessionSummary } from './list.js';

export interface FormatOptions {
  /** For relative times; default now. */
  now?: Date;
  /** Add a DIRECTORY column (for `keen sessions --all`). */
  showCwd?: boolean;
  /** Width of the FIRST PROMPT column (default 60). */
  promptWidth?: number;
}

/** A plain-text table, one session per line, ending with a newline. */
export function formatSessionList(rows: readonly SessionSummary[], opts: FormatOptions = {}): string {
  if (rows.length === 0) return 'No sessions found. Start one with `keen`.\n';
  const now = opts.now ?? new Date();
  const header = ['ID', 'LAST ACTIVE', 'TURNS', 'COMPACTED', ...(opts.showCwd ? ['DIRECTORY'] : []), 'FIRST PROMPT'];
  const table = rows.map((r) => [
    r.id,
    relativeTime(r.lastActivity, now),
    String(r.turns),
    r.compacted ? 'yes' : 'no',
    ...(opts.showCwd ? [r.cwd || '?'] : []),
    oneLine(r.firstPrompt, opts.promptWidth ?? 60) || '(no prompt yet)',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
  const turnsCol = 2;
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : i === turnsCol ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
  return `${[line(header), ...table.map(line)].join('\n')}\n`;
}

/** `just now`, `5m ago`, `3h ago`, `2d ago`, then the local date `2025-03-01`. */
export function relativeTime(when: Date, now: Date): string {
  const seconds = Math.max(0, Math.round((now.getTime() - when.getTime()) / 1000));
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  if (seconds < 7 * 86_400) return `${Math.floor(seconds / 86_400)}d ago`;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${when.getFullYear()}-${pad(when.getMonth() + 1)}-${pad(when.getDate())}`;
}
