/**
 * The protocol-neutral script that every loopback fake provider speaks. A test enqueues replies;
 * each protocol's fake encodes them in its real wire format (SSE, AWS event-stream, ...).
 */
import type http from 'node:http';

export type FakeStep =
  | { text: string }
  /**
   * Reasoning, as each service returns it: an Anthropic thinking block or Bedrock reasoningContent
   * with a signature, a Responses reasoning item (`encrypted_content`; text split on blank lines
   * into summary parts), a chat `reasoning_content` delta, a Gemini thought part (its signature
   * goes on the next function-call part).
   */
  | { thinking: string; signature?: string }
  /** Redacted reasoning (Anthropic `redacted_thinking`, Bedrock `redactedContent`); base64 data. Others skip it. */
  | { redacted: string }
  | { toolCall: { id?: string; name: string; args: unknown } }
  /**
   * The model's refusal text, where the service has a field for it: Chat Completions
   * `delta.refusal`, a Responses `refusal` content part. The other services send it as text.
   * `whole`: the Chat fake sends it as servers that send whole messages do, in
   * `choice.message.refusal` instead of a delta.
   */
  | { refusal: string; whole?: boolean }
  | PauseStep
  /** Destroy the socket here, mid-stream, without a proper end. */
  | { cut: true };

export interface FakeUsage {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  /** Reasoning tokens, part of `output` (billed as output); each fake reports them its service's way. */
  reasoning?: number;
  /** The Chat fake leaves `total_tokens` out, as a server that reports no total does. */
  noTotal?: boolean;
}

export interface FakeReply {
  steps?: FakeStep[];
  /** Answer with these bytes exactly (a recorded response, see recording.ts) instead of encoding steps. */
  raw?: { status: number; contentType: string; body: Buffer; headers?: Record<string, string> };
  usage?: FakeUsage;
  /**
   * Defaults to tool_use when the steps hold a tool call, else end_turn. `refusal` is each
   * service's own signal that it declined: Anthropic `stop_reason: "refusal"` with
   * `stop_details`, Chat `finish_reason: "content_filter"`, Responses `response.incomplete` with
   * reason `content_filter`, Bedrock `stopReason` `guardrail_intervened`, Gemini `finishReason`
   * `SAFETY` with the blocked safety ratings.
   */
  stopReason?: 'end_turn' | 'tool_use' | 'max_tokens' | 'refusal';
  /** With `stopReason: 'refusal'`: the details the service sends with it. */
  refusal?: {
    /** The service's value where it has several (Bedrock `content_filtered`, Gemini `PROHIBITED_CONTENT`, ...). */
    native?: string;
    /** Anthropic `stop_details.category`. */
    category?: string;
    /** Anthropic `stop_details.explanation`. */
    explanation?: string;
    /** Gemini safety categories rated `blocked: true`. */
    blocked?: string[];
    /** Gemini: the prompt itself was blocked (`promptFeedback.blockReason`, no candidates at all). */
    prompt?: boolean;
  };
  /**
   * Answer with this HTTP error instead of a stream. `retryDelay`: the wait the service asks for,
   * in its own form (Gemini: `google.rpc.RetryInfo` in the error details, e.g. "34.4s").
   */
  /** `code` and `param`: OpenAI's error fields (code defaults to the type). */
  error?: { status: number; type?: string; message: string; retryDelay?: string; code?: string; param?: string };
  /** Wait this long before answering at all (headers included). */
  delayMs?: number;
  /** Answer only once this settles (the test lets the reply through at a point of its choosing). */
  until?: Promise<unknown>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** Decides the reply for a request when the queue is empty (or always, when set). */
export type Responder = (req: RecordedRequest, index: number) => FakeReply;

export function hasToolCall(reply: FakeReply): boolean {
  return (reply.steps ?? []).some((s) => 'toolCall' in s);
}

export function stopReasonOf(reply: FakeReply): NonNullable<FakeReply['stopReason']> {
  return reply.stopReason ?? (hasToolCall(reply) ? 'tool_use' : 'end_turn');
}

export function argsText(args: unknown): string {
  return typeof args === 'string' ? args : JSON.stringify(args ?? {});
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * A pause mid-reply: `delayMs` sends nothing for that long; `hold` sends nothing more until the
 * client hangs up (a stalled server: only the client's abort can end the reply, so a test of
 * promptness needs no clock).
 */
export type PauseStep = { delayMs: number } | { hold: true };

export function isPause(step: FakeStep): step is PauseStep {
  return 'delayMs' in step || 'hold' in step;
}

/** Waits out `step`; false when the reply ends there (the client hung up during a hold). */
export async function pause(step: PauseStep, res: http.ServerResponse): Promise<boolean> {
  if ('delayMs' in step) {
    await sleep(step.delayMs);
    return true;
  }
  if (!res.closed) await new Promise((resolve) => res.once('close', resolve));
  return false;
}

/** The steps for a service without a refusal field: a refusal step is text there. */
export function refusalsAsText(reply: FakeReply): Exclude<FakeStep, { refusal: string }>[] {
  return (reply.steps ?? []).map((s) => ('refusal' in s ? { text: s.refusal } : s));
}
