import type { LlmError } from './errors.js';
import type { Message, ToolCall, ToolMessage } from './message.js';
import type { Usage } from './usage.js';

/** A wait Keen is about to do before retrying a model request (announced, then waited). */
export interface RetryWait {
  /** Host the request went to. */
  host: string;
  /** HTTP status, or 0 for a connection failure. */
  status: number;
  waitMs: number;
  /** 1-based retry number and the number allowed. */
  retry: number;
  of: number;
}

/**
 * Everything a running chat stream reports, as one discriminated union on `type`.
 *
 * Invariants:
 * - A stream never throws: it ends with exactly one `done` or one `error` event.
 * - `message` is emitted for every generic message the loop appends to its history (each assistant
 *   reply, each tool result), in order. Consumers rebuild "turn memory" from these alone.
 * - After `auto_compaction_applied`, the history is `replacement` and later `message` events extend
 *   it. The replacement includes the system message(s); strip them before storing.
 * - The `auto_compaction_*` events are control events, never assistant content.
 * - `retry_wait` comes before a retried request, while nothing of its reply was shown: the
 *   wait it names is then waited (Ctrl+C ends it).
 */
export type StreamEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'reasoning_delta'; text: string }
  | { type: 'tool_call_started'; call: ToolCall }
  /**
   * A PreToolUse hook changed the input of a started call (`original`, as the model made it):
   * `call` is what runs. Comes after the call's `tool_call_started`, before its end.
   */
  | { type: 'tool_call_input_changed'; call: ToolCall; original: ToolCall }
  /** `call` is the call as it ran: a hook's input when `tool_call_input_changed` came before. */
  | { type: 'tool_call_finished'; call: ToolCall; result: ToolMessage }
  | { type: 'message'; message: Message }
  | { type: 'usage'; usage: Usage }
  | { type: 'retry_wait'; wait: RetryWait }
  | { type: 'auto_compaction_started'; cancel: () => void }
  | {
      type: 'auto_compaction_applied';
      replacement: Message[];
      /** '' when the compaction only pruned old tool outputs (then `pruned` is set). */
      summary: string;
      usage?: Usage;
      tokensBefore: number;
      tokensAfter: number;
      /** Prune-only: the tool outputs replaced by artifact handles (indices into the system-free history). */
      pruned?: { index: number; tool_call_id: string; artifact: number; content: string }[];
    }
  | { type: 'auto_compaction_cancelled'; usage?: Usage }
  | { type: 'auto_compaction_failed'; reason: string; usage?: Usage }
  | { type: 'error'; error: LlmError }
  /** `explanation`: why the model declined (stop reason `refusal`), when the service said. */
  | { type: 'done'; stopReason: StopReason; explanation?: string };

export type StopReason = 'end_turn' | 'max_tokens' | 'max_turns' | 'refusal' | 'other';

export type StreamEventType = StreamEvent['type'];
