import { errorText } from '../errors.js';
import type { StreamEvent } from '../core/events.js';
import { stripSystem, userMessage, type ToolMessage, type ToolResultImage } from '../core/message.js';
import { addUsage, emptyUsage, type Usage } from '../core/usage.js';
import { llmError } from '../core/errors.js';
import type { AppState } from './app-state.js';
import { interruptedToolResults } from '../transcript/interrupted.js';
import type { NewRecord, PromptSection } from '../transcript/records.js';
import { ContextMeasure } from './context-measure.js';
import { shownStream } from './shown-stream.js';
import { TurnMemory } from './turn-memory.js';
import type { SessionHooks } from '../hooks/session-hooks.js';

/** Times in a row a Stop hook may send the model back to work before the turn ends anyway. */
const MAX_STOP_CONTINUATIONS = 8;

/** The records the controller writes (the store adds seq, timestamp and batch marker). */
export type TurnRecord = Extract<NewRecord, { kind: 'user_message' | 'assistant_turn' | 'compaction_applied' | 'prune_applied' }>;

/** Where records go. The session store implements it; `appendBatch` is atomic. */
export interface TranscriptSink {
  append(record: TurnRecord): Promise<unknown>;
  appendBatch(records: TurnRecord[]): Promise<unknown>;
  /** Replace the credentials the sink knows of in `text` (used on error lines). Required: a wrapper that forgot it would leak keys in errors. */
  redactText(text: string): string;
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
  private carried: string[] = [];

  constructor(
    readonly appState: AppState,
    private readonly sink: TranscriptSink,
    /** The session's UserPromptSubmit, Stop and PreCompact hooks (docs/hooks.md). */
    private readonly hooks?: SessionHooks,
  ) {
    this.context = new ContextMeasure(appState);
  }

  /**
   * A normal turn. Persists the user message once the provider answers (a turn whose first event
   * is an error that never reached the model is not recorded: the message leaves AppState again
   * and `unsaved` is set), then each assistant message and each tool result as it completes (one
   * `assistant_turn` record each, durable before AppState or the consumer sees it), applies
   * automatic compactions (checkpoint + compaction_applied in one atomic batch, then AppState),
   * and persists what is left (text of a cut-off reply) when the stream ends, also after an error
   * or a cancel. A failed write ends the turn with one `error` event and leaves history and
   * transcript in step: nothing that is not on disk stays in AppState. Streamed text comes out
   * scrubbed across deltas (shown-stream.ts); the records keep what the store's redaction keeps.
   */
  chat(input: string, signal?: AbortSignal, images?: readonly ToolResultImage[]): AsyncGenerator<ControllerEvent> {
    return shownStream(this.chatEvents(input, signal, images), (text) => this.scrub(text));
  }

  private async *chatEvents(input: string, outer?: AbortSignal, images?: readonly ToolResultImage[]): AsyncGenerator<ControllerEvent> {
    const hooks = this.hooks;
    const context = [...this.carried];
    // A hook's `continue: false` stops the turn as a cancel does, but the turn ends as done: the
    // hook's reason was the user's line (session-hooks.ts), never a result the model reads.
    const stopped = new AbortController();
    const signal = outer ? AbortSignal.any([outer, stopped.signal]) : stopped.signal;
    const unlisten = hooks?.onStop(() => stopped.abort());
    try {
      yield* this.chatTurns(input, context, signal, stopped.signal, images);
    } finally {
      unlisten?.();
    }
  }

  private async *chatTurns(input: string, context: string[], signal: AbortSignal, stopped: AbortSignal, images?: readonly ToolResultImage[]): AsyncGenerator<ControllerEvent> {
    const hooks = this.hooks;
    if (hooks?.has('UserPromptSubmit')) {
      // A blocked prompt is not sent and not recorded; the reason is the turn's one error line.
      const verdict = await hooks.run('UserPromptSubmit', '', { prompt: input }, signal);
      if (stopped.aborted) {
        yield { type: 'done', stopReason: 'end_turn' };
        return;
      }
      if (verdict.block !== undefined) {
        yield { type: 'error', error: llmError('other', `prompt blocked by a UserPromptSubmit hook: ${verdict.block}`) };
        return;
      }
      if (verdict.context) context.push(verdict.context);
    }
    this.carried = [];
    let ended = yield* this.turn(withHookContext(input, context), signal, stopped, images);
    // A Stop hook that blocks sends the model back to work with its reason as the next prompt.
    for (let round = 0; ended && hooks?.has('Stop') && round < MAX_STOP_CONTINUATIONS && !signal.aborted; round++) {
      const verdict = await hooks.run('Stop', '', { stop_hook_active: round > 0 }, signal);
      if (verdict.block === undefined || stopped.aborted) break;
      ended = yield* this.turn(`Stop hook: ${verdict.block}`, signal, stopped);
    }
  }

  /** Context a SessionStart hook gave: sent with the next prompt (docs/hooks.md). */
  carryContext(text: string): void {
    this.carried.push(text);
  }

  /** One turn of `chat`; true when it ran to its end without an error. A hook's stop ends it as done. */
  private async *turn(input: string, signal: AbortSignal, stopped: AbortSignal, images?: readonly ToolResultImage[]): AsyncGenerator<ControllerEvent, boolean> {
    let failed = false;
    for await (const ev of this.oneTurn(input, signal, images)) {
      if (ev.type === 'error' && ev.error.kind === 'cancelled' && stopped.aborted && signal.reason === stopped.reason) {
        yield { type: 'done', stopReason: 'end_turn' };
        return false;
      }
      if (ev.type === 'error') failed = true;
      yield ev;
    }
    return !failed && !signal.aborted;
  }

  private async *oneTurn(input: string, signal?: AbortSignal, images?: readonly ToolResultImage[]): AsyncGenerator<ControllerEvent> {
    const dangling = interruptedToolResults(this.appState.messages);
    if (dangling) {
      // A tool call left without a result (a failed write earlier in this process): close it.
      await this.sink.append({ kind: 'assistant_turn', text: '', tools: dangling.tools, usage: emptyUsage(), messages: dangling.messages });
      for (const m of dangling.messages) this.appState.appendMessage(m);
    }
    let pending: TurnRecord | undefined = { kind: 'user_message', message: userMessage(input, images) };
    this.unsaved = false;
    const memory = new TurnMemory();
    /** Visible text since the turn started or the last checkpoint (what a checkpoint shows). */
    let visible = '';
    /** Tool results on disk (written when the call finished) whose `message` has not come yet. */
    const persisted = new Map<string, ToolMessage>();
    let saveFailed = false;
    let remainderError: unknown;
    const save = async (): Promise<ControllerEvent | undefined> => {
      try {
        await this.sink.append({ kind: 'assistant_turn', ...memory.snapshot() });
        memory.reset();
        return undefined;
      } catch (err) {
        saveFailed = true;
        return { type: 'error', error: llmError('other', `could not save the turn: ${errorText(err)}; the turn stopped`) };
      }
    };
    const stream = this.appState.streamChat(input, signal, images);
    try {
      for await (const ev of stream) {
        if (pending) {
          if (ev.type === 'error' && UNREACHED.has(ev.error.kind)) {
            pending = undefined;
            this.unsaved = true;
            this.appState.dropLastMessage();
            yield { ...ev, error: { ...ev.error, message: this.scrub(ev.error.message) } };
            continue;
          }
          // The prompt this turn settled on (a new one, or a reminder ahead of the text) is part of it.
          const record = { ...pending, ...this.appState.turnPrompt } as TurnRecord;
          pending = undefined;
          try {
            await this.sink.append(record);
          } catch (err) {
            saveFailed = true;
            this.appState.dropLastMessage();
            yield { type: 'error', error: llmError('other', `could not save the turn: ${errorText(err)}; the turn stopped`) };
            return;
          }
        }
        if (ev.type === 'auto_compaction_applied') {
          const replacement = stripSystem(ev.replacement);
          // The checkpoint holds what is not on disk yet (each message was written as it completed).
          const batch: TurnRecord[] = [{ kind: 'assistant_turn', ...memory.snapshot(true) }];
          // A prune-only compaction is its own record: replayed in order, it rewrites the same outputs on load.
          if (ev.pruned && !ev.summary) batch.push({ kind: 'prune_applied', pruned: ev.pruned.map((p) => ({ ...p })) });
          else batch.push({ kind: 'compaction_applied', mode: 'auto', status: '', messages: replacement, ...this.promptRecord() });
          try {
            await this.sink.appendBatch(batch);
          } catch (err) {
            saveFailed = true;
            yield { type: 'error', error: llmError('other', `could not save the compaction: ${errorText(err)}`) };
            return;
          }
          const text = visible;
          this.appState.replaceHistory(replacement);
          this.context.reset();
          this.compactions.push({ at: new Date().toISOString(), mode: 'auto', tokensBefore: ev.tokensBefore, tokensAfter: ev.tokensAfter });
          memory.reset();
          visible = '';
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
        if (ev.type === 'error') {
          const message = ev.error.kind === 'context_window' ? contextWindowHint(ev.error.message, this.appState.sessionId) : ev.error.message;
          yield { ...ev, error: { ...ev.error, message: this.scrub(message) } };
          continue;
        }
        if (ev.type === 'text_delta') visible += ev.text;
        if (ev.type === 'message' && ev.message.role === 'tool' && persisted.has(ev.message.tool_call_id)) {
          persisted.delete(ev.message.tool_call_id);
          this.appState.appendMessage(ev.message);
          yield ev;
          continue;
        }
        memory.observe(ev);
        if (ev.type === 'tool_call_finished') {
          memory.observe({ type: 'message', message: ev.result });
          const failed = await save();
          if (failed) {
            yield failed;
            return;
          }
          persisted.set(ev.result.tool_call_id, ev.result);
        }
        if (ev.type === 'message') {
          const failed = await save();
          if (failed) {
            yield failed;
            return;
          }
          this.appState.appendMessage(ev.message);
        }
        yield ev;
      }
    } finally {
      // Results already durable join history even when the turn stopped before their `message`.
      for (const result of persisted.values()) this.appState.appendMessage(result);
      if (!saveFailed && !memory.isEmpty()) {
        try {
          await this.sink.append({ kind: 'assistant_turn', ...memory.snapshot() });
        } catch (err) {
          remainderError = err;
        }
      }
    }
    // Reached only when the stream ran to its end (not when the consumer stopped early).
    if (remainderError !== undefined) {
      yield { type: 'error', error: llmError('other', `could not save the end of the turn: ${errorText(remainderError)}`) };
    }
  }

  /** Credentials scrubbed from text shown to the user (errors may quote a key or a base URL). */
  private scrub(text: string): string {
    return this.sink.redactText(text);
  }

  /**
   * Manual compaction. Streams the summary (visible), then, when the compaction module produced a
   * valid replacement (one summary at the head, marked with its level, plus the verbatim tail),
   * persists `compaction_applied` and only then replaces AppState history. On failure or cancel
   * history and transcript are unchanged. The summariser's usage counts toward the spend. The
   * summary's text streams scrubbed, as `chat`'s does.
   */
  compact(focus?: string, signal?: AbortSignal): AsyncGenerator<ControllerEvent> {
    return shownStream(this.compactEvents(focus, signal), (text) => this.scrub(text));
  }

  private async *compactEvents(focus?: string, signal?: AbortSignal): AsyncGenerator<ControllerEvent> {
    if (this.hooks?.has('PreCompact')) {
      const verdict = await this.hooks.run('PreCompact', 'manual', { trigger: 'manual', custom_instructions: focus ?? '' }, signal);
      if (verdict.block !== undefined || verdict.stop !== undefined) {
        yield { type: 'error', error: llmError('other', `compaction blocked by a PreCompact hook: ${verdict.block ?? verdict.stop}; history unchanged`) };
        return;
      }
    }
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
      yield { type: 'error', error: llmError(kind, `${outcome.cancelled ? 'compaction cancelled' : outcome.reason.replace(/\.$/, '')}; history unchanged`) };
      return;
    }
    const replacement = stripSystem(outcome.replacement);
    try {
      await this.sink.append({ kind: 'compaction_applied', mode: 'manual', status: MANUAL_COMPACTION_STATUS, messages: replacement, ...this.promptRecord() });
    } catch (err) {
      yield { type: 'error', error: llmError('other', `could not save the compaction: ${errorText(err)}; history unchanged`) };
      return;
    }
    const tokensBefore = this.context.measure().tokens;
    this.appState.replaceHistory(replacement);
    this.context.reset();
    this.compactions.push({ at: new Date().toISOString(), mode: 'manual', tokensBefore, tokensAfter: this.context.measure().tokens });
    yield { type: 'compaction_done', summary: outcome.summary };
  }

  /** The session's system prompt for a compaction record: a resume that starts there keeps it. */
  private promptRecord(): { system?: PromptSection[] } {
    const system = this.appState.promptSnapshot;
    return system ? { system } : {};
  }

  /** Adds tokens spent outside the parent stream (a subagent's requests) to the session's spend. */
  addSpend(usage: Usage | undefined): void {
    this.spent = addUsage(this.spent, usage);
  }
}

/** The prompt with the hooks' context after it, marked as theirs (none: the prompt as typed). */
function withHookContext(input: string, context: readonly string[]): string {
  return context.length ? `${input}\n\n<hook_context>\n${context.join('\n')}\n</hook_context>` : input;
}

/**
 * A context-length refusal on a normal turn never starts a compaction by itself; its one line
 * names the way out, which always works now that the summary request always fits.
 */
export function contextWindowHint(message: string, sessionId: string): string {
  return `${message.replace(/[.\s]+$/, '')} — the conversation is too long for the model: compact it with /compact in the REPL or \`keen compact --session ${sessionId}\``;
}
