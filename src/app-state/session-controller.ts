import { errorText } from '../errors.js';
import type { StreamEvent } from '../llm/core/events.js';
import { stripSystem, userMessage } from '../llm/core/message.js';
import { addUsage, emptyUsage, type Usage } from '../llm/core/usage.js';
import { llmError } from '../llm/core/errors.js';
import type { AppState } from './app-state.js';
import type { NewRecord } from '../session/records.js';
import { ContextMeasure } from './context-measure.js';
import { TurnMemory } from './turn-memory.js';

/** The records the controller writes (the store adds seq, timestamp and batch marker). */
export type TurnRecord = Extract<NewRecord, { kind: 'user_message' | 'assistant_turn' | 'compaction_applied' }>;

/** Where records go. The session store implements it; `appendBatch` is atomic. */
export interface TranscriptSink {
  append(record: TurnRecord): Promise<unknown>;
  appendBatch(records: TurnRecord[]): Promise<unknown>;
}

/** Events the controller adds to the provider's stream for its consumers (REPL, headless). */
export type ControllerEvent =
  | StreamEvent
  /** Emitted after an automatic compaction is durable and installed: the visible pre-compaction text. */
  | { type: 'checkpoint'; text: string }
  /** Emitted after a manual compaction is durable and installed. */
  | { type: 'compaction_done'; summary: string };

export const MANUAL_COMPACTION_STATUS = 'Context compacted.';

/** One compaction of the session: when, how, and the context size before → after (estimated). */
export interface CompactionNote {
  at: string;
  mode: 'manual' | 'auto';
  tokensBefore: number;
  tokensAfter: number;
}

/**
 * Errors that mean the model was never reached (a key refused, no region, a refused model, a
 * network failure): when the first request of a turn ends with one, the turn is not recorded.
 * A context-window error or a cancel keeps the prompt, so the user can compact or go on.
 */
const UNREACHED = new Set(['auth', 'network', 'rate_limit', 'other']);

/**
 * The one place that turns a running stream into durable records and AppState changes; the REPL
 * and the headless runner both consume it.
 *
 * Order is always: durable first, then AppState, then the consumer sees the result.
 */
export class SessionController {
  /** Tokens spent so far, compaction included. */
  spent: Usage = emptyUsage();
  /** The last turn failed before reaching the model and was not recorded. */
  unsaved = false;
  /** The context size as the compaction trigger sees it (footer, /context). */
  readonly context: ContextMeasure;
  /** Compactions applied by this controller, oldest first (for /context). */
  readonly compactions: CompactionNote[] = [];

  constructor(
    readonly appState: AppState,
    private readonly sink: TranscriptSink,
  ) {
    this.context = new ContextMeasure(appState);
  }

  /**
   * A normal turn. Persists the user message once the provider answers, streams the agent,
   * applies automatic compactions (checkpoint + compaction_applied in one atomic batch, then
   * AppState), and persists the assistant turn when the stream ends, also after an error or a
   * cancel. When the first event is an error that never reached the model, nothing is recorded
   * and the message leaves AppState again (`unsaved` is set).
   */
  async *chat(input: string, signal?: AbortSignal): AsyncGenerator<ControllerEvent> {
    let pending: TurnRecord | undefined = { kind: 'user_message', message: userMessage(input) };
    this.unsaved = false;
    const memory = new TurnMemory();
    const stream = this.appState.streamChat(input, signal);
    try {
      for await (const ev of stream) {
        if (pending) {
          if (ev.type === 'error' && UNREACHED.has(ev.error.kind)) {
            pending = undefined;
            this.unsaved = true;
            this.appState.dropLastMessage();
            yield ev;
            continue;
          }
          const record = pending;
          pending = undefined;
          await this.sink.append(record);
        }
        if (ev.type === 'auto_compaction_applied') {
          const replacement = stripSystem(ev.replacement);
          const batch: TurnRecord[] = [];
          if (!memory.isEmpty()) batch.push({ kind: 'assistant_turn', ...memory.snapshot(true) });
          batch.push({ kind: 'compaction_applied', mode: 'auto', status: '', messages: replacement });
          try {
            await this.sink.appendBatch(batch);
          } catch (err) {
            yield { type: 'error', error: llmError('other', `could not save the compaction: ${errorText(err)}`) };
            return;
          }
          const text = memory.visibleText;
          this.appState.replaceHistory(replacement);
          this.context.reset();
          this.compactions.push({ at: new Date().toISOString(), mode: 'auto', tokensBefore: ev.tokensBefore, tokensAfter: ev.tokensAfter });
          memory.reset();
          this.addSpend(ev.usage);
          yield ev;
          yield { type: 'checkpoint', text };
          continue;
        }
        if (ev.type === 'auto_compaction_failed' || ev.type === 'auto_compaction_cancelled') this.addSpend(ev.usage);
        if (ev.type === 'usage') {
          this.addSpend(ev.usage);
          this.context.observe(ev.usage);
        }
        memory.observe(ev);
        if (ev.type === 'message') this.appState.appendMessage(ev.message);
        yield ev;
      }
    } finally {
      if (!memory.isEmpty()) await this.sink.append({ kind: 'assistant_turn', ...memory.snapshot() });
    }
  }

  /**
   * Manual compaction. Streams the summary (visible), then, when a non-empty summary exists and
   * the stream ended well, persists `compaction_applied` and replaces AppState history with one
   * user message. On failure or cancel history and transcript are unchanged.
   */
  async *compact(focus?: string, signal?: AbortSignal): AsyncGenerator<ControllerEvent> {
    let summary = '';
    let failed = false;
    for await (const ev of this.appState.streamCompact(focus, signal)) {
      if (ev.type === 'text_delta') summary += ev.text;
      else if (ev.type === 'tool_call_started') summary = '';
      else if (ev.type === 'usage') this.addSpend(ev.usage);
      else if (ev.type === 'error') failed = true;
      else if (ev.type === 'done' && ev.stopReason !== 'end_turn') {
        failed = true;
        yield { type: 'error', error: llmError('other', `compaction stopped early (${ev.stopReason}); history unchanged`) };
        continue;
      }
      yield ev;
    }
    if (failed) return;
    const text = summary.trim();
    if (!text) {
      yield { type: 'error', error: llmError('other', 'compaction produced an empty summary; history unchanged') };
      return;
    }
    try {
      await this.sink.append({ kind: 'compaction_applied', mode: 'manual', status: MANUAL_COMPACTION_STATUS, messages: [userMessage(text)] });
    } catch (err) {
      yield { type: 'error', error: llmError('other', `could not save the compaction: ${errorText(err)}; history unchanged`) };
      return;
    }
    const tokensBefore = this.context.measure().tokens;
    this.appState.applyCompaction(text);
    this.context.reset();
    this.compactions.push({ at: new Date().toISOString(), mode: 'manual', tokensBefore, tokensAfter: this.context.measure().tokens });
    yield { type: 'compaction_done', summary: text };
  }

  private addSpend(usage: Usage | undefined): void {
    this.spent = addUsage(this.spent, usage);
  }
}
