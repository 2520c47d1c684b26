import type { HookEntry } from './load-hooks.js';

/**
 * The lines `/hooks` shows: one per hook, in the order they run — event, matcher (`*` for all),
 * timeout, command, and the file it came from. Pure.
 */
export function hookListLines(entries: readonly HookEntry[]): string[] {
  if (entries.length === 0) {
    return ['No hooks are configured. Add them under "hooks" in your config.json or a trusted project\'s .keen/config.json (see docs/hooks.md).'];
  }
  const rows = entries.map((e) => [e.event, e.matcher?.trim() ? e.matcher.trim() : '*', `${e.timeoutSeconds}s`, e.command]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i].length)));
  const lines: string[] = [];
  let file: string | undefined;
  entries.forEach((e, i) => {
    if (e.file !== file) {
      if (file !== undefined) lines.push('');
      lines.push(`${e.file}:`);
      file = e.file;
    }
    const r = rows[i];
    lines.push(`  ${r[0].padEnd(widths[0])}  ${r[1].padEnd(widths[1])}  ${r[2].padStart(widths[2])}  ${r[3]}`);
  });
  return lines;
}
