/**
 * The one summarise step shared by automatic and manual compaction: the cache-parity fork when it
 * fits, the budgeted document when it does not or when the provider refuses the fork for length,
 * halving the document's budget on further refusals, one retry of a stream that died mid-summary,
 * and never more than {@link MAX_SUMMARY_REQUESTS} requests.
 */
import type { LlmError } from '../core/errors.js';
import type { StreamEvent } from '../core/events.js';
import { addUsage, emptyUsage, type Usage } from '../core/usage.js';
import { SUMMARISER_SYSTEM_PROMPT } from './prompts.js';
import { buildDocument, type BudgetedDocument } from './document.js';
import { documentBudget, fitsSummariser, isTransientError, MAX_HALVINGS, MAX_SUMMARY_REQUESTS } from './policy.js';
import type { Message } from '../core/message.js';

/** How a summary request reaches a model. */
export interface SummaryRoute {
  /**
   * The nested request: the parent request byte for byte plus `prompt` as one more user message
   * (prompt-cache parity). Absent when the summariser is another model.
   */
  fork?: {
    /** Estimated input tokens of the fork, prompt included. */
    estimate: number;
    /** The context window of the model it goes to. */
    window: number;
    send(prompt: string, signal: AbortSignal): AsyncIterable<StreamEvent>;
  };
  /** A fresh request to the summariser: `system`, no tools, one user message. */
  document: {
    inputBudget: number;
    send(system: string, user: string, signal: AbortSignal): AsyncIterable<StreamEvent>;
  };
}

export interface SummariseInput {
  /** The fork's instruction (it sees the history itself). */
  forkPrompt: string;
  /** The document's instruction (appended after `<conversation>`). */
  documentPrompt: string;
  /** What the document flattens: the messages being replaced, without the previous summary. */
  messages: readonly Message[];
  previousSummary?: string;
  route: SummaryRoute;
  /** Forward text and tool cards (manual compaction streams its summary visibly). */
  visible: boolean;
  signal: AbortSignal;
  count: (text: string) => number;
}

export type SummaryResult =
  | { ok: true; summary: string; usage: Usage; requests: number; via: 'fork' | 'document' }
  | { ok: false; reason: string; cancelled: boolean; usage: Usage; requests: number; error?: LlmError };

interface Attempt {
  text: string;
  usage: Usage;
  error?: LlmError;
  stop?: string;
}

async function* runAttempt(stream: AsyncIterable<StreamEvent>, visible: boolean): AsyncGenerator<StreamEvent, Attempt> {
  const out: Attempt = { text: '', usage: emptyUsage() };
  for await (const ev of stream) {
    if (ev.type === 'text_delta') {
      out.text += ev.text;
      if (visible) yield ev;
    } else if (ev.type === 'tool_call_started' || ev.type === 'tool_call_finished') {
      if (ev.type === 'tool_call_started') out.text = ''; // keep only text after the last tool activity
      if (visible) yield ev;
    } else if (ev.type === 'usage') out.usage = addUsage(out.usage, ev.usage);
    // A summary request's retry wait is announced like the turn's own.
    else if (ev.type === 'retry_wait') yield ev;
    else if (ev.type === 'error') out.error = ev.error;
    else if (ev.type === 'done') out.stop = ev.stopReason;
  }
  return out;
}

/**
 * Produce one summary, or a reason there is none. Never throws; yields only (when `visible`)
 * text deltas and tool events of the summary requests.
 */
export async function* summarise(input: SummariseInput): AsyncGenerator<StreamEvent, SummaryResult> {
  const { route } = input;
  let usage = emptyUsage();
  let requests = 0;
  let retried = false;
  let halvings = 0;
  let shown = false;
  const framing = input.count(SUMMARISER_SYSTEM_PROMPT);
  let budget = documentBudget(route.document.inputBudget, framing);
  let doc: BudgetedDocument | undefined;
  const makeDoc = () => buildDocument({ messages: input.messages, previousSummary: input.previousSummary, instructions: input.documentPrompt, budget, count: input.count });
  let via: 'fork' | 'document' = route.fork && fitsSummariser(route.fork.estimate, route.fork.window) ? 'fork' : 'document';
  if (via === 'document') doc = makeDoc();

  for (;;) {
    if (input.signal.aborted) return { ok: false, reason: 'cancelled', cancelled: true, usage, requests };
    if (requests >= MAX_SUMMARY_REQUESTS) return { ok: false, reason: `no summary after ${requests} summary requests`, cancelled: false, usage, requests };
    requests++;
    const stream = via === 'fork' ? route.fork!.send(input.forkPrompt, input.signal) : route.document.send(SUMMARISER_SYSTEM_PROMPT, doc!.text, input.signal);
    const attempt = yield* runAttempt(stream, input.visible);
    usage = addUsage(usage, attempt.usage);
    if (attempt.text) shown = shown || input.visible;
    const error = attempt.error;
    if (error?.kind === 'cancelled' || input.signal.aborted) return { ok: false, reason: 'cancelled', cancelled: true, usage, requests, error };
    if (error?.kind === 'context_window') {
      if (via === 'fork') {
        via = 'document';
        doc = makeDoc();
        continue;
      }
      if (halvings >= MAX_HALVINGS) return fail(`the summary request was still too long after ${halvings} halvings`, error);
      const before = doc!.text.length;
      budget = Math.floor(budget / 2);
      halvings++;
      doc = makeDoc();
      if (doc.text.length >= before) return fail('the summary request could not be made any shorter', error);
      continue;
    }
    if (error && isTransientError(error) && !retried) {
      retried = true;
      if (shown) yield { type: 'text_delta', text: '\n\n[the summary stream was cut; retrying once]\n\n' };
      continue;
    }
    if (error) return fail(error.message, error);
    if (attempt.stop === 'max_tokens') return fail('the summary was cut off at the output limit');
    if (attempt.stop === 'max_turns') return fail('the model kept calling tools instead of summarising');
    if (attempt.stop && attempt.stop !== 'end_turn') return fail(`the summary stopped early (${attempt.stop})`);
    const summary = attempt.text.trim();
    if (!summary) return fail('the summary was empty');
    return { ok: true, summary, usage, requests, via };
  }

  function fail(reason: string, error?: LlmError): SummaryResult {
    return { ok: false, reason, cancelled: false, usage, requests, error };
  }
}
