import { isAbortError, llmError, type LlmError } from './errors.js';
import { stripSystem, systemPart, userMessage, type AssistantMessage, type Message, type ToolMessage } from './message.js';
import type { ModelTurnEvent, ProviderConversation, TurnLimits, TurnStopReason } from './provider.js';
import type { Usage } from './usage.js';

/**
 * Folds lossless messages into one wire API's native history, one message at a time, so a new
 * message costs its own size and never a re-derivation of the whole history. Deterministic: the
 * same messages give the same native history, whether they arrived live or from a transcript.
 */
export interface NativeEncoder<N> {
  push(message: Message): void;
  /**
   * The prompt-cache prefix ends here (providers whose cache point is a position, like Bedrock).
   * Called after every append except `appendUserText`, which must keep the parent's prefix.
   */
  anchor?(): void;
  /** An independent copy; later pushes to either never change the other. */
  clone(): NativeEncoder<N>;
  /** The native history now. Read-only: a wire adds its cache markers to copies. */
  view(): N;
}

/** What a wire's `send` yields while the reply streams. */
export type TurnDelta = Extract<ModelTurnEvent, { type: 'text_delta' | 'reasoning_delta' | 'retry_wait' }>;

/** One decoded reply, as a wire's `send` returns it once the service said the reply is complete. */
export interface WireTurn {
  /** The lossless assistant message (its tool calls included). */
  message: AssistantMessage;
  stopReason: TurnStopReason;
  usage?: Usage;
  /** Why the service declined (stop reason `refusal`), when it said. */
  explanation?: string;
}

/**
 * What a provider adapter is: translation only. Encode (via the encoder), send one request and
 * decode its stream: yield the deltas, return the reply, or undefined when the stream ended
 * before the service said the reply was complete. `send` may throw; the conversation maps what
 * it throws with `classify`. The end of every turn (cancelled, cut short, usage, `turn_end`) is
 * the conversation's.
 */
export interface WireTranslation<N> {
  /** The service's name in the one-line errors, e.g. "Anthropic", "the server at http://…". */
  service: string;
  encoder(): NativeEncoder<N>;
  send(native: N, signal: AbortSignal, limits: TurnLimits | undefined): AsyncGenerator<TurnDelta, WireTurn | undefined>;
  classify(err: unknown, signal: AbortSignal): LlmError;
  /**
   * After a compaction: `keep` keeps this conversation's system messages and takes only the
   * replacement's conversation (Anthropic, Bedrock); `replace` takes the replacement whole.
   */
  replaceSystem: 'keep' | 'replace';
  /** Unanswered tool calls are pending state a compaction must not split (Responses). */
  pairsToolCalls?: boolean;
}

/**
 * The one provider-neutral conversation: it owns the lossless history (system messages first)
 * and derives the native request from it through the adapter's encoder. Appends, forks (the
 * nested compaction request), replacement after a compaction and the pending-state rule live
 * here once; abort linking, the never-throw rule and the end of every turn of `streamTurn` too.
 */
export class Conversation<N> implements ProviderConversation {
  private constructor(
    private readonly wire: WireTranslation<N>,
    private history: Message[],
    private encoder: NativeEncoder<N>,
  ) {}

  /** A conversation over `messages` (system first, as in a ChatRequest). */
  static open<N>(wire: WireTranslation<N>, messages: readonly Message[]): Conversation<N> {
    const conversation = new Conversation(wire, [], wire.encoder());
    conversation.pushAll(messages);
    return conversation;
  }

  /** The lossless history (system messages included). Read-only. */
  get messages(): readonly Message[] {
    return this.history;
  }

  /** The native history the next request sends (before per-request cache markers). */
  native(): N {
    return this.encoder.view();
  }

  async *streamTurn(signal: AbortSignal, limits?: TurnLimits): AsyncIterable<ModelTurnEvent> {
    // A local controller also releases the connection when the consumer stops reading early.
    const local = new AbortController();
    const follow = () => local.abort();
    if (signal.aborted) local.abort();
    else signal.addEventListener('abort', follow, { once: true });
    let ended = false;
    try {
      const turn = yield* this.wire.send(this.encoder.view(), local.signal, limits);
      ended = true;
      if (signal.aborted) {
        yield { type: 'error', error: llmError('cancelled', 'Request cancelled.') };
        return;
      }
      if (!turn) {
        yield { type: 'error', error: llmError('network', `The connection to ${this.wire.service} closed before the reply finished.`) };
        return;
      }
      if (turn.usage) yield { type: 'usage', usage: turn.usage };
      this.append(turn.message);
      yield { type: 'turn_end', message: turn.message, stopReason: turn.stopReason, ...(turn.explanation ? { explanation: turn.explanation } : {}) };
    } catch (err) {
      ended = true;
      yield { type: 'error', error: isAbortError(err, signal) ? llmError('cancelled', 'Request cancelled.') : this.wire.classify(err, signal) };
    } finally {
      signal.removeEventListener('abort', follow);
      if (!ended) local.abort();
    }
  }

  appendToolResults(results: ToolMessage[]): void {
    if (results.length === 0) return;
    for (const r of results) this.append(r);
    this.encoder.anchor?.();
  }

  /**
   * The final user content. Wires that refuse two user turns in a row (Bedrock) merge it into the
   * last user turn; the cache anchor stays where it was, so a fork reads its parent's prefix.
   */
  appendUserText(text: string): void {
    this.append(userMessage(text));
  }

  /** True while a tool call has no result, for wires that pair reasoning with calls. */
  hasPendingState(): boolean {
    if (!this.wire.pairsToolCalls) return false;
    const answered = new Set<string>();
    for (const m of this.history) if (m.role === 'tool') answered.add(m.tool_call_id);
    for (const m of this.history) {
      if (m.role === 'assistant' && (m.tool_calls ?? []).some((c) => !answered.has(c.id))) return true;
    }
    return false;
  }

  replaceHistory(replacement: Message[]): void {
    const next = this.wire.replaceSystem === 'keep' ? [...systemPart(this.history), ...stripSystem(replacement)] : [...replacement];
    this.history = [];
    this.encoder = this.wire.encoder();
    this.pushAll(next);
  }

  fork(): ProviderConversation {
    return new Conversation(this.wire, [...this.history], this.encoder.clone());
  }

  private pushAll(messages: readonly Message[]): void {
    for (const m of messages) this.append(m);
    this.encoder.anchor?.();
  }

  private append(message: Message): void {
    this.history.push(message);
    this.encoder.push(message);
  }
}
