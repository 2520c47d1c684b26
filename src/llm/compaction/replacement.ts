import { systemPart, type Message } from '../core/message.js';

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
    const inner = m.content.startsWith('<compacted_context>') ? LAST_USER_RE.exec(m.content) : null;
    return inner ? inner[1] : m.content;
  }
  return '';
}

/** The compacted user message: the summary plus the latest user request verbatim. */
export function compactedUserContent(summary: string, latestRequest: string): string {
  return `<compacted_context>\n${summary.trim()}\n</compacted_context>\n\n<last_user_message>\n${latestRequest}\n</last_user_message>`;
}

/**
 * The provider-facing replacement for an automatic compaction: the original system message(s) and
 * one user message. Strip the system part before storing it in AppState or a transcript.
 */
export function buildAutoReplacement(history: readonly Message[], summary: string): Message[] {
  return [...systemPart(history).map((m) => ({ ...m })), { role: 'user', content: compactedUserContent(summary, latestUserRequest(history)) }];
}
