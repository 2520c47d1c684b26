/**
 * The controller's events as the front ends may show them: the model's streamed text and
 * reasoning scrubbed across deltas, so a credential split over two deltas never reaches the REPL
 * screen, `keen run`'s stdout or stream-json (src/security/stream-scrubber.ts). A delta may come
 * out shorter (its end held back) or not at all; what was held comes out, scrubbed, before the
 * next event of another kind and when the stream ends, so the order of text and events stays.
 * Text that comes whole (a tool call's arguments — a hook's changed ones too — and its output on the card, an error, a failed
 * compaction's reason) is scrubbed whole.
 */
import { knownCredentialForms } from '../security/scrubber.js';
import { StreamScrubber } from '../security/stream-scrubber.js';
import type { StreamEvent } from '../core/events.js';

type Delta = Extract<StreamEvent, { type: 'text_delta' | 'reasoning_delta' }>;
/** The controller's events (session-controller.ts ControllerEvent), by the shape this reads. */
type Event = StreamEvent | { type: 'checkpoint'; text: string } | { type: 'compaction_done'; summary: string };

/** `events` with their text scrubbed by `scrub` (the session's redaction) across deltas. */
export async function* shownStream<E extends Event>(events: AsyncIterable<E>, scrub: (text: string) => string): AsyncGenerator<E | Delta> {
  const runs = { text_delta: new StreamScrubber(scrub, knownCredentialForms), reasoning_delta: new StreamScrubber(scrub, knownCredentialForms) };
  function* flushed(keep?: Delta['type']): Generator<Delta> {
    for (const type of ['reasoning_delta', 'text_delta'] as const) {
      const text = type === keep ? '' : runs[type].flush();
      if (text) yield { type, text };
    }
  }
  try {
    for await (const ev of events) {
      if (ev.type === 'text_delta' || ev.type === 'reasoning_delta') {
        yield* flushed(ev.type);
        const text = runs[ev.type].push(ev.text);
        if (text) yield { type: ev.type, text };
        continue;
      }
      // Usage may come between two deltas of one answer (some services report it with every chunk).
      if (ev.type !== 'usage') yield* flushed();
      yield shownEvent(ev, scrub);
    }
  } catch (err) {
    // The source failed (the store could not write, say): what was held is still shown.
    yield* flushed();
    throw err;
  }
  yield* flushed();
}

/** An event whose text is shown whole (a tool card's call and output, a checkpoint), scrubbed; history keeps its own copy. */
function shownEvent<E extends Event>(ev: E, scrub: (text: string) => string): E {
  switch (ev.type) {
    case 'tool_call_started':
      return { ...ev, call: { ...ev.call, args: scrub(ev.call.args) } };
    case 'tool_call_input_changed':
      return { ...ev, call: { ...ev.call, args: scrub(ev.call.args) }, original: { ...ev.original, args: scrub(ev.original.args) } };
    case 'tool_call_finished':
      return { ...ev, call: { ...ev.call, args: scrub(ev.call.args) }, result: { ...ev.result, content: scrub(ev.result.content) } };
    case 'checkpoint':
      return { ...ev, text: scrub(ev.text) };
    // A provider's error may quote a key or a base URL: a compaction's failure carries its message too.
    case 'error':
      return { ...ev, error: { ...ev.error, message: scrub(ev.error.message) } };
    case 'auto_compaction_failed':
      return { ...ev, reason: scrub(ev.reason) };
    // A refusal's explanation is the service's text, shown as the answer's last line.
    case 'done':
      return ev.explanation ? { ...ev, explanation: scrub(ev.explanation) } : ev;
    default:
      return ev;
  }
}
