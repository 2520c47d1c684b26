/**
 * What a tool card shows, derived from the call: the arguments on one line and, for edits and
 * writes, a diff built from the arguments (the permission prompt's diff, with real line numbers,
 * replaces it when the user was asked).
 */
import type { ToolCall } from '../core/message.js';
import { unifiedDiff } from '../tools/diff.js';
import { LIVE_TAIL_CHARS } from '../tools/output-cap.js';
import { CANCELLED } from '../tools/types.js';
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

/** Lines of output kept on a card at most (the model got the whole text; this is only display). */
export const CARD_OUTPUT_LINES = 400;

export function clipOutput(text: string): string {
  const lines = text.replace(/\n+$/, '').split('\n');
  if (lines.length <= CARD_OUTPUT_LINES) return lines.join('\n');
  return [...lines.slice(0, CARD_OUTPUT_LINES), `… ${lines.length - CARD_OUTPUT_LINES} more lines`].join('\n');
}

/** A live tail's complete lines: its first line is dropped when the tail may have cut it. */
export function liveLines(tail: string, full: boolean): string[] {
  const lines = tail.replace(/\n+$/, '').split('\n');
  return full && lines.length > 1 ? lines.slice(1) : lines;
}

/**
 * The output a finished card keeps. A call cancelled while it printed (Ctrl+C on a bash command)
 * keeps what it printed above the "cancelled", instead of losing it to the one word.
 */
export function endedOutput(card: ToolCardData, output: string): string {
  if (!card.live || output !== CANCELLED) return output;
  return `${clipOutput(liveLines(card.live, card.live.length >= LIVE_TAIL_CHARS).join('\n'))}\n${output}`;
}
