import type { RecordedRequest } from '../fakes/script.js';
import { COMPACTION_MARKER } from '../loop/loop-harness.js';

/** Deep copy without `cache_control` keys: breakpoints move each request by design. */
export function stripCache<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (k, v) => (k === 'cache_control' ? undefined : v)));
}

export function lastUserText(body: any): string {
  const last = body?.messages?.[body.messages.length - 1];
  if (!last || last.role !== 'user') return '';
  if (typeof last.content === 'string') return last.content;
  const texts = (last.content as any[]).filter((b) => b.type === 'text');
  return texts.length ? texts[texts.length - 1].text : '';
}

/** A compaction request: some user message carries the compaction prompt (it may be followed by refused tool turns). */
export function isCompactionRequest(req: RecordedRequest): boolean {
  const messages: any[] = req.body?.messages ?? [];
  return messages.some(
    (m) =>
      m.role === 'user' &&
      (typeof m.content === 'string' ? m.content.startsWith(COMPACTION_MARKER) : m.content.some((b: any) => b.type === 'text' && b.text.startsWith(COMPACTION_MARKER))),
  );
}
