import { structuredPatch } from 'diff';

/**
 * A line-based unified diff for permission prompts and tool cards, computed by the `diff` library
 * (Myers). A missing final newline is not shown as a change. When the diff would take too long
 * (very different large files), it is shown as one removed block and one added block.
 */

export interface DiffOptions {
  /** Shown in the `---`/`+++` header. */
  path?: string;
  /** Unchanged lines around each change. Default 3. */
  context?: number;
  /** Diff lines kept before the rest is summarised. Default 400. */
  maxLines?: number;
}

/** Give up on an alignment after this long and show whole blocks instead. */
const DIFF_TIMEOUT_MS = 500;

function normalise(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}

function lines(text: string): string[] {
  if (text === '') return [];
  const out = text.split('\n');
  out.pop();
  return out;
}

interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

function hunksOf(before: string, after: string, context: number): Hunk[] {
  const patch = structuredPatch('a', 'b', before, after, '', '', { context, timeout: DIFF_TIMEOUT_MS });
  if (patch) return patch.hunks;
  const a = lines(before);
  const b = lines(after);
  return [{ oldStart: 1, oldLines: a.length, newStart: 1, newLines: b.length, lines: [...a.map((l) => `-${l}`), ...b.map((l) => `+${l}`)] }];
}

/** A unified diff of `before` → `after`, or '' when they are equal. */
export function unifiedDiff(before: string, after: string, options: DiffOptions = {}): string {
  const a = normalise(before);
  const b = normalise(after);
  if (a === b) return '';
  const maxLines = options.maxLines ?? 400;
  const name = options.path ?? 'file';
  const out: string[] = [`--- a/${name}`, `+++ b/${name}`];
  for (const h of hunksOf(a, b, options.context ?? 3)) {
    // Unified diff convention: an empty range starts at the line before it.
    const oldStart = h.oldLines === 0 ? h.oldStart - 1 : h.oldStart;
    const newStart = h.newLines === 0 ? h.newStart - 1 : h.newStart;
    out.push(`@@ -${oldStart},${h.oldLines} +${newStart},${h.newLines} @@`);
    for (const line of h.lines) if (!line.startsWith('\\')) out.push(line);
  }
  if (out.length <= maxLines) return out.join('\n');
  return [...out.slice(0, maxLines), `... ${out.length - maxLines} more diff lines not shown`].join('\n');
}
