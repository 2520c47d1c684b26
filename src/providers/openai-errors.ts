import { KeenError, errorText } from '../errors.js';
import { isAbortError, llmError, type LlmError } from '../core/errors.js';
import { isContextOverflow, isNetworkFailure, NETWORK_TEXT, redirectNotFollowed } from './kit/error-table.js';
import type { OpenAIModule } from './openai-sdk.js';

/** How to word errors for one OpenAI-flavoured endpoint. */
export interface OpenAIErrorContext {
  /** e.g. "OpenAI", "Codex", "the server at http://127.0.0.1:11434/v1". */
  service: string;
  /** What to do after a 401/403, e.g. "Check OPENAI_API_KEY." */
  authHint: string;
  /** SDK retries already spent before a 429 surfaces. */
  retries: number;
  /** Removes secrets (tokens) from any text that might be shown. */
  redact?: (text: string) => string;
}

/** Thrown by a wire for a failure the stream reported in-band (already classified). */
export class StreamFailure extends Error {
  override name = 'StreamFailure';
  constructor(readonly error: LlmError) {
    super(error.message);
  }
}

/** Maps anything an OpenAI SDK call throws to an {@link LlmError}. Never throws. */
export function mapOpenAIError(err: unknown, signal: AbortSignal | undefined, sdk: OpenAIModule | undefined, ctx: OpenAIErrorContext): LlmError {
  const clean = (t: string) => (ctx.redact ? ctx.redact(t) : t);
  if (isAbortError(err, signal) || (sdk && err instanceof sdk.APIUserAbortError)) {
    return llmError('cancelled', 'Request cancelled.');
  }
  if (err instanceof StreamFailure) return err.error;
  // A credential callback (Codex token refresh) failing arrives wrapped by the SDK.
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  if (err instanceof KeenError) return llmError('auth', clean(err.message));
  if (cause instanceof KeenError) return llmError('auth', clean(cause.message));

  if (sdk && err instanceof sdk.APIConnectionError) {
    const detail = cause ? errorText(cause) : errorText(err);
    return llmError('network', clean(`Could not reach ${ctx.service}: ${detail}`));
  }
  if (sdk && err instanceof sdk.APIError) {
    const status = typeof err.status === 'number' ? err.status : undefined;
    const body = (err.error ?? {}) as { message?: unknown; code?: unknown };
    const message = clean(typeof body.message === 'string' && body.message ? body.message : stripStatus(err.message)).replace(/[.\s]+$/, '');
    const code = typeof err.code === 'string' ? err.code : typeof body.code === 'string' ? body.code : '';
    if (isContextOverflow(message, code)) {
      return llmError('context_window', `${cap(ctx.service)} rejected the request: the context window is full (${message})`, status);
    }
    if (status === 401 || status === 403) {
      return llmError('auth', `${cap(ctx.service)} rejected the credentials (${status}): ${message}. ${ctx.authHint}`, status);
    }
    if (status === 429) {
      return llmError('rate_limit', `${cap(ctx.service)} is rate limiting requests (429, after ${ctx.retries} retries): ${message}`, status);
    }
    if (status === undefined) return streamError(code, message, ctx);
    const moved = redirectNotFollowed(status, err.headers);
    if (moved) return llmError('other', clean(`${cap(ctx.service)} ${moved}.`), status);
    return llmError('other', `${cap(ctx.service)} returned ${status}: ${message}`, status);
  }
  const text = clean(errorText(err));
  if (err instanceof TypeError || isNetworkFailure(err) || NETWORK_TEXT.test(text)) {
    return llmError('network', `The connection to ${ctx.service} broke mid-reply: ${text}`);
  }
  return llmError('other', `${cap(ctx.service)} request failed: ${text}`);
}

/** An error reported inside an SSE stream (no HTTP status), e.g. a Responses `error` event. */
export function streamError(code: string, message: string, ctx: OpenAIErrorContext): LlmError {
  const text = ctx.redact ? ctx.redact(message) : message;
  if (isContextOverflow(text, code)) {
    return llmError('context_window', `${cap(ctx.service)} rejected the request: the context window is full (${text})`);
  }
  if (code === 'rate_limit_exceeded' || /rate limit/i.test(text)) {
    return llmError('rate_limit', `${cap(ctx.service)} is rate limiting requests: ${text}`);
  }
  if (code === 'invalid_api_key' || code === 'unauthorized') {
    return llmError('auth', `${cap(ctx.service)} rejected the credentials: ${text}. ${ctx.authHint}`);
  }
  return llmError('other', `${cap(ctx.service)} reported an error${code ? ` (${code})` : ''}: ${text}`);
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function stripStatus(message: string): string {
  return message.replace(/^\d{3}\s+/, '');
}
