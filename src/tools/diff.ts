/**
 * A small line-based unified diff, good enough to show a permission prompt what an edit changes.
 * Common leading and trailing lines are trimmed first; the middle is aligned with an LCS table
 * when small enough, otherwise shown as one removed block and one added block.
 */

type Op = { kind: ' ' | '-' | '+'; line: string };

const LCS_CELL_LIMIT = 4_000_000;

export interface DiffOptions {
  /** Shown in the `---`/`+++` header. */
  path?: string;
  /** Unchanged lines around each change. Default 3. */
  context?: number;
  /** Diff lines kept before the rest is summarised. Default 400. */
  maxLines?: number;
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function diffOps(a: string[], b: string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ops: Op[] = a.slice(0, start).map((line) => ({ kind: ' ' as const, line }));
  ops.push(...middleOps(a.slice(start, endA), b.slice(start, endB)));
  ops.push(...a.slice(endA).map((line) => ({ kind: ' ' as const, line })));
  return ops;
}

function middleOps(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0 || (n + 1) * (m + 1) > LCS_CELL_LIMIT) {
    return [...a.map((line) => ({ kind: '-' as const, line })), ...b.map((line) => ({ kind: '+' as const, line }))];
  }
  // table[i][j] = LCS length of a[i..] and b[j..], stored row-major.
  const width = m + 1;
  const table = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] =
        a[i] === b[j] ? table[(i + 1) * width + j + 1] + 1 : Math.max(table[(i + 1) * width + j], table[i * width + j + 1]);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      ops.push({ kind: ' ', line: a[i++] });
      j++;
    } else if (table[(i + 1) * width + j] >= table[i * width + j + 1]) {
      ops.push({ kind: '-', line: a[i++] });
    } else {
      ops.push({ kind: '+', line: b[j++] });
    }
  }
  while (i < n) ops.push({ kind: '-', line: a[i++] });
  while (j < m) ops.push({ kind: '+', line: b[j++] });
  return ops;
}

/** A unified diff of `before` → `after`, or '' when they are equal. */
export function unifiedDiff(before: string, after: string, options: DiffOptions = {}): string {
  const context = options.context ?? 3;
  const maxLines = options.maxLines ?? 400;
  const ops = diffOps(splitLines(before), splitLines(after));
  const changed = ops.map((op, k) => (op.kind !== ' ' ? k : -1)).filter((k) => k >= 0);
  if (changed.length === 0) return '';

  const name = options.path ?? 'file';
  const out: string[] = [`--- a/${name}`, `+++ b/${name}`];
  // Group changes whose context windows touch into hunks.
  let k = 0;
  while (k < changed.length) {
    let last = changed[k];
    let next = k + 1;
    while (next < changed.length && changed[next] - last <= 2 * context + 1) last = changed[next++];
    const from = Math.max(0, changed[k] - context);
    const to = Math.min(ops.length, last + context + 1);
    out.push(hunk(ops, from, to));
    k = next;
  }
  const lines = out.join('\n').split('\n');
  if (lines.length <= maxLines) return lines.join('\n');
  return [...lines.slice(0, maxLines), `... ${lines.length - maxLines} more diff lines not shown`].join('\n');
}

function hunk(ops: Op[], from: number, to: number): string {
  let oldStart = 1;
  let newStart = 1;
  for (let k = 0; k < from; k++) {
    if (ops[k].kind !== '+') oldStart++;
    if (ops[k].kind !== '-') newStart++;
  }
  const body = ops.slice(from, to);
  const oldCount = body.filter((op) => op.kind !== '+').length;
  const newCount = body.filter((op) => op.kind !== '-').length;
  // Unified diff convention: an empty range starts at the line before it.
  const header = `@@ -${oldCount === 0 ? oldStart - 1 : oldStart},${oldCount} +${newCount === 0 ? newStart - 1 : newStart},${newCount} @@`;
  return [header, ...body.map((op) => op.kind + op.line)].join('\n');
}
