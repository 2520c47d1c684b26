/**
 * Reading event streams in tests: a provider conversation's turn (`ModelTurnEvent`), the loop's
 * and the session controller's streams (`StreamEvent`, `ControllerEvent`). The helpers take any
 * event union with a `type`, so one set serves all three.
 */
import type { ModelTurnEvent } from '../../src/core/provider.js';

interface Typed {
  type: string;
}

/** Every event of `stream`, in order; `onEvent` sees each as it arrives (to cancel, to interrupt). */
export async function collect<E>(stream: AsyncIterable<E>, onEvent?: (ev: E) => void): Promise<E[]> {
  const events: E[] = [];
  for await (const ev of stream) {
    events.push(ev);
    onEvent?.(ev);
  }
  return events;
}

/** One turn of a provider conversation: every event up to its `turn_end` or `error`. */
export function turn(conv: { streamTurn(signal: AbortSignal): AsyncIterable<ModelTurnEvent> }, signal = new AbortController().signal): Promise<ModelTurnEvent[]> {
  return collect(conv.streamTurn(signal));
}

/** The events of one type, narrowed to it. */
export function only<E extends Typed, T extends E['type']>(events: readonly E[], type: T): Extract<E, { type: T }>[] {
  return events.filter((e): e is Extract<E, { type: T }> => e.type === type);
}

/** The last event (a turn's `turn_end` or `error`, a loop's `done`). */
export function last<E>(events: readonly E[]): E {
  return events[events.length - 1];
}

/** The error a turn ended with; throws, naming the events, when it ended otherwise. */
export function errorOf(events: readonly ModelTurnEvent[]): Extract<ModelTurnEvent, { type: 'error' }>['error'] {
  const e = last(events);
  if (e?.type !== 'error') throw new Error(`expected an error, got ${JSON.stringify(events)}`);
  return e.error;
}

/** The streamed text: every `text_delta` joined. */
export function textOf(events: readonly Typed[]): string {
  return events.map((e) => (e.type === 'text_delta' && 'text' in e ? String(e.text) : '')).join('');
}

/** The tool calls of a turn's `turn_end` (none when it ended otherwise). */
export function toolCallsOf(events: readonly ModelTurnEvent[]) {
  return events.flatMap((e) => (e.type === 'turn_end' ? (e.message.tool_calls ?? []) : []));
}

/** Event types in order, with consecutive duplicates (deltas) collapsed. */
export function eventOrder(events: readonly Typed[]): string[] {
  const out: string[] = [];
  for (const e of events) if (out[out.length - 1] !== e.type) out.push(e.type);
  return out;
}
