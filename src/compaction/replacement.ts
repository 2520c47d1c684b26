import type { Message } from '../core/message.js';

const LAST_USER_RE = /<last_user_message>\n?([\s\S]*?)\n?<\/last_user_message>\s*$/;

/**
 * The user's latest request, verbatim. When the newest user message is itself a compaction
 * replacement (a second compaction in one turn), its `<last_user_message>` is unwrapped so the
 * request is never nested inside a summary.
 */
export function latestUserRequest(history: readonly Message[]): string {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i];
    if (m.role !== 'user') continue;
    if (!m.summary_level && !m.content.startsWith('<compacted_context>')) return m.content;
    const inner = LAST_USER_RE.exec(m.content);
    return inner ? inner[1] : '';
  }
  return '';
}
