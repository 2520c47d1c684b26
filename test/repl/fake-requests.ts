/** Reading Anthropic request bodies recorded by the loopback fake. */
import type { RecordedRequest } from '../fakes/script.js';

type Block = { type: string; text?: string; content?: unknown };
type NativeMessage = { role: string; content: string | Block[] };

export function messagesOf(req: RecordedRequest): NativeMessage[] {
  return (req.body?.messages ?? []) as NativeMessage[];
}

/** The text blocks of one message, joined. */
export function textOf(m: NativeMessage | undefined): string {
  if (!m) return '';
  if (typeof m.content === 'string') return m.content;
  return m.content
    .filter((b) => b.type === 'text')
    .map((b) => b.text ?? '')
    .join('');
}

export function lastUserText(req: RecordedRequest): string {
  const msgs = messagesOf(req);
  return textOf(msgs[msgs.length - 1]);
}

export function isCompactionRequest(req: RecordedRequest): boolean {
  return lastUserText(req).startsWith('This is a context compaction');
}

/** The last message carries tool results (the model is answering after a tool ran). */
export function afterToolResult(req: RecordedRequest): boolean {
  const msgs = messagesOf(req);
  const last = msgs[msgs.length - 1];
  return !!last && typeof last.content !== 'string' && last.content.some((b) => b.type === 'tool_result');
}

/** Every text the request carries, flattened (to check what the model was sent). */
export function allText(req: RecordedRequest): string {
  return JSON.stringify(req.body?.messages ?? []);
}
