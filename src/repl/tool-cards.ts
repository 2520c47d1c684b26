/**
 * What a tool card shows, derived from the call: the arguments on one line and, for edits and
 * writes, a diff built from the arguments (the permission prompt's diff, with real line numbers,
 * replaces it when the user was asked).
 */
import type { ToolCall } from '../core/message.js';
import { unifiedDiff } from '../tools/diff.js';
import { toolSummary } from '../tools/summary.js';
import type { ToolCardData } from './state/ui-state.js';

/** `bash npm test` → `npm test` (the card shows the name separately). */
export function argsOf(summary: string, name: string): string {
  if (summary === name) return '';
  return summary.startsWith(`${name} `) ? summary.slice(name.length + 1) : summary;
}

function parseArgs(call: ToolCall): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(call.args || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Diff lines without the file headers and hunk markers (their numbers would be snippet-relative). */
function bodyOf(diff: string): string {
  return diff
    .split('\n')
    .filter((l) => !l.startsWith('---') && !l.startsWith('+++') && !l.startsWith('@@'))
    .join('\n');
}

export function diffFromArgs(call: ToolCall): string | undefined {
  const args = parseArgs(call);
  if (!args || typeof args.path !== 'string') return undefined;
  if (call.name === 'edit_file' && typeof args.old_string === 'string' && typeof args.new_string === 'string') {
    return bodyOf(unifiedDiff(args.old_string, args.new_string, { context: 2, maxLines: 200 })) || undefined;
  }
  if (call.name === 'write_file' && typeof args.content === 'string') {
    return bodyOf(unifiedDiff('', args.content, { maxLines: 200 })) || undefined;
  }
  return undefined;
}

export function cardFor(call: ToolCall): ToolCardData {
  const card: ToolCardData = { id: call.id, name: call.name, args: argsOf(toolSummary(call), call.name), status: 'running', output: '' };
  const diff = diffFromArgs(call);
  if (diff) card.diff = diff;
  return card;
}
