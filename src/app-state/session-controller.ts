import { errorText } from '../errors.js';
import type { StreamEvent } from '../llm/core/events.js';
import { stripSystem, userMessage } from '../llm/core/message.js';
import { addUsage, emptyUsage, type Usage } from '../llm/core/usage.js';
import { llmError } from '../llm/core/errors.js';
import type { AppState } from './app-state.js';
import type { NewRecord } from '../session/records.js';
import { TurnMemory } from './turn-memory.js';

/** The records the controller writes (the store adds seq, timestamp and batch marker). */
export type TurnRecord = Extract<NewRecord, { kind: 'user_message' | 'assistant_turn' | 'compaction_applied' | 'prune_applied' }>;

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

/**
 * The one place that turns a running stream into durable records and AppState changes; the REPL
 * and the headless runner both consume it.
 *
 * Order is always: durable first, then AppState, then the consumer sees the result.
 */
export class SessionController {
  /** Tokens spent so far, compaction included. */
  spent: Usage = emptyUsage();

  constructor(
    readonly appState: AppState,
    private readonly sink: TranscriptSink,
  ) {}

  /**
   * A normal turn. Persists the user message, streams the agent, applies automatic compactions
   * (checkpoint + compaction_applied in one atomic batch, then AppState), and persists the
   * assistant turn when the stream ends, also after an error or a cancel.
   */
  async *chat(input: string, signal?: AbortSignal): AsyncGenerator<ControllerEvent> {
    await this.sink.append({ kind: 'user_message', message: userMessage(input) });
    const memory = new TurnMemory();
    const stream = this.appState.streamChat(input, signal);
    try {
      for await (const ev of stream) {
        if (ev.type === 'auto_compaction_applied') {
          const replacement = stripSystem(ev.replacement);
          const batch: TurnRecord[] = [];
          if (!memory.isEmpty()) batch.push({ kind: 'assistant_turn', ...memory.snapshot(true) });
          // A prune-only compaction is its own record: replayed in order, it rewrites the same outputs on load.
          if (ev.pruned && !ev.summary) batch.push({ kind: 'prune_applied', pruned: ev.pruned.map((p) => ({ ...p })) });
          else batch.push({ kind: 'compaction_applied', mode: 'auto', status: '', messages: replacement });
          try {
            await this.sink.appendBatch(batch);
          } catch (err) {
            yield { type: 'error', error: llmError('other', `could not save the compaction: ${errorText(err)}`) };
            return;
          }
          const text = memory.visibleText;
          this.appState.replaceHistory(replacement);
          memory.reset();
          this.addSpend(ev.usage);
          yield ev;
          yield { type: 'checkpoint', text };
          continue;
        }
        if (ev.type === 'auto_compaction_failed' || ev.type === 'auto_compaction_cancelled') this.addSpend(ev.usage);
        if (ev.type === 'usage') this.addSpend(ev.usage);
        memory.observe(ev);
        if (ev.type === 'message') this.appState.appendMessage(ev.message);
        if (ev.type === 'error' && ev.error.kind === 'context_window') {
          yield { type: 'error', error: { ...ev.error, message: contextWindowHint(ev.error.message, this.appState.sessionId) } };
          continue;
        }
        yield ev;
      }
    } finally {
      if (!memory.isEmpty()) await this.sink.append({ kind: 'assistant_turn', ...memory.snapshot() });
    }
  }

  /**
   * Manual compaction. Streams the summary (visible), then, when the compaction module produced a
   * valid replacement (one summary at the head, marked with its level, plus the verbatim tail),
   * persists `compaction_applied` and only then replaces AppState history. On failure or cancel
   * history and transcript are unchanged. The summariser's usage counts toward the spend.
   */
  async *compact(focus?: string, signal?: AbortSignal): AsyncGenerator<ControllerEvent> {
    const stream = this.appState.streamCompact(focus, signal);
    let step = await stream.next();
    while (!step.done) {
      yield step.value;
      step = await stream.next();
    }
    const outcome = step.value;
    this.addSpend(outcome.usage);
    if (!outcome.ok) {
      const kind = outcome.cancelled ? 'cancelled' : (outcome.error?.kind ?? 'other');
      yield { type: 'error', error: llmError(kind, `${outcome.cancelled ? 'compaction cancelled' : outcome.reason}; history unchanged`) };
      return;
    }
    const replacement = stripSystem(outcome.replacement);
    try {
      await this.sink.append({ kind: 'compaction_applied', mode: 'manual', status: MANUAL_COMPACTION_STATUS, messages: replacement });
    } catch (err) {
      yield { type: 'error', error: llmError('other', `could not save the compaction: ${errorText(err)}; history unchanged`) };
      return;
    }
    this.appState.replaceHistory(replacement);
    yield { type: 'compaction_done', summary: outcome.summary };
  }

  private addSpend(usage: Usage | undefined): void {
    this.spent = addUsage(this.spent, usage);
  }
}

/**
 * A context-length refusal on a normal turn never starts a compaction by itself; its one line
 * names the way out, which always works now that the summary request always fits.
 */
export function contextWindowHint(message: string, sessionId: string): string {
  return `${message.replace(/[.\s]+$/, '')} — the conversation is too long for the model: compact it with /compact in the REPL or \`keen compact --session ${sessionId}\``;
}
