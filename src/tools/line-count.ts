/** Line counts as the tools and their summaries word them (kept apart from the tools, so a summary loads no schema). */

export function linesText(n: number): string {
  return n === 1 ? '1 line' : `${n} lines`;
}

/** Lines as an editor counts them: a trailing newline does not start another line. */
export function lineCount(text: string): number {
  if (text === '') return 0;
  const n = text.split('\n').length;
  return text.endsWith('\n') ? n - 1 : n;
}
