import type { Message, ToolResultImage } from '../core/message.js';

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

/**
 * The images of the user's latest request (a summary that carried them counts as that request):
 * the screenshot a turn is about stays with `<last_user_message>` when its message is summarised.
 */
export function latestUserImages(history: readonly Message[]): ToolResultImage[] | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i];
    if (m.role === 'user') return m.images?.length ? m.images.map((img) => ({ ...img })) : undefined;
  }
  return undefined;
}
