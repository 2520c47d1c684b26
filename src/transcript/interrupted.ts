import type { Message, ToolMessage } from '../core/message.js';
import type { ToolActivity } from './records.js';

/** The text of the error result recorded for a tool call whose process died while it ran. */
export const INTERRUPTED_RESULT =
  'interrupted: Keen stopped (killed, crashed or the terminal closed) while this tool call was running; it may have run in part or not at all. Check its effects before repeating it.';

/**
 * Tool calls of the last assistant message in `history` that have no result after it: the calls
 * that were running (or about to run) when the process died. Pure. Returns an error result for
 * each, in call order, plus the cards to show, or undefined when nothing is missing.
 */
export function interruptedToolResults(history: readonly Message[]): { messages: ToolMessage[]; tools: ToolActivity[] } | undefined {
  let at = history.length - 1;
  while (at >= 0 && history[at].role === 'tool') at--;
  const last = history[at];
  if (!last || last.role !== 'assistant' || !last.tool_calls?.length) return undefined;
  const answered = new Set(history.slice(at + 1).map((m) => (m.role === 'tool' ? m.tool_call_id : '')));
  const missing = last.tool_calls.filter((c) => !answered.has(c.id));
  if (missing.length === 0) return undefined;
  return {
    messages: missing.map((c) => ({ role: 'tool', tool_call_id: c.id, name: c.name, content: INTERRUPTED_RESULT, is_error: true })),
    tools: missing.map((c) => ({ id: c.id, name: c.name, summary: `${c.name}: interrupted`, is_error: true, offset: 0 })),
  };
}
