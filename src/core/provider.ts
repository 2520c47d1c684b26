import type { LlmError } from './errors.js';
import type { RetryWait } from './events.js';
import type { AssistantMessage, Message, ToolMessage } from './message.js';
import type { Usage } from './usage.js';

/** A tool as the model sees it: name, description and a JSON Schema for its input. */
export interface ToolDefinition {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** What the shared loop sends: the system message(s) first, then the conversation. */
export interface ChatRequest {
  model: string;
  messages: Message[];
  tools: ToolDefinition[];
  maxOutputTokens: number;
  /** Extended thinking budget where the provider supports it; 0 or undefined turns it off. */
  thinkingBudget?: number;
  /**
   * The session this request belongs to, stable across compactions and resumes: services that
   * route by a cache key (Responses `prompt_cache_key`, Codex's `session_id` header) get it.
   */
  sessionId?: string;
  /**
   * false: place no prompt-cache breakpoints (Anthropic, Bedrock), for a one-off request whose
   * prefix no later request shares (the budgeted compaction document). Default: cached.
   */
  promptCache?: boolean;
}

/** Per-request limits the loop computes from its context estimate. */
export interface TurnLimits {
  /**
   * Cap on output tokens for this request: the room left in the window after the prompt. APIs
   * that reject prompt + max_tokens over the window (Anthropic, Bedrock) fail without it.
   */
  maxOutputTokens?: number;
}

/** The output-token limit to send: the configured one, capped by the turn's limit. */
export function outputLimit(configured: number, limits: TurnLimits | undefined): number {
  const cap = limits?.maxOutputTokens;
  return cap !== undefined && cap > 0 ? Math.min(configured, cap) : configured;
}

/** Why one model request stopped (mapped from every wire API in providers/kit/stop-reason.ts). */
export type TurnStopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'refusal' | 'other';

/**
 * What one provider turn reports to the loop: deltas as they arrive, then usage and one
 * `turn_end` carrying the lossless assistant message (its tool calls included), or one `error`.
 * A `retry_wait` announces a wait before the request is sent again (see src/net/retry-fetch.ts).
 */
export type ModelTurnEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'reasoning_delta'; text: string }
  | { type: 'usage'; usage: Usage }
  | { type: 'retry_wait'; wait: RetryWait }
  /** `explanation`: why the service declined (stop reason `refusal`), when it said. */
  | { type: 'turn_end'; message: AssistantMessage; stopReason: TurnStopReason; explanation?: string }
  | { type: 'error'; error: LlmError };

/**
 * The conversation of one running stream (implemented once, by `Conversation` in
 * ./conversation.ts): it owns the lossless history and derives each provider's native request
 * from it, so the request after a resume is the request the live loop would have sent.
 */
export interface ProviderConversation {
  /**
   * Send the native history as one request and stream the reply. Never throws: it ends with
   * exactly one `turn_end` (after appending the assistant's native reply to its history) or one
   * `error` (history unchanged).
   */
  streamTurn(signal: AbortSignal, limits?: TurnLimits): AsyncIterable<ModelTurnEvent>;
  /** Append the results of the last turn's tool calls, in call order. */
  appendToolResults(results: ToolMessage[]): void;
  /**
   * Append `text` as the final user content. Providers that refuse two user turns in a row
   * (Bedrock Converse) add it as a text block to the last user turn, after its tool results.
   */
  appendUserText(text: string): void;
  /**
   * True while native state exists that a compaction must not split (e.g. Responses reasoning and
   * function-call items that must stay paired). Automatic compaction waits while it is true.
   */
  hasPendingState(): boolean;
  /**
   * Install a compaction replacement (system message(s) + one user message) following the
   * provider table in docs/compaction.md; clears pending state of the old history.
   */
  replaceHistory(replacement: Message[]): void;
  /** An independent copy: mutating the fork never changes this conversation. */
  fork(): ProviderConversation;
}

/** A provider: turns a generic request into a native conversation. Lazily imports its SDK. */
export interface ProviderAdapter {
  readonly id: string;
  open(request: ChatRequest): Promise<ProviderConversation>;
}
