/**
 * Maps whatever the Anthropic SDK (or the socket under it) threw to one LlmError kind and a
 * one-line message. Pure: works on the error's shape, never on the SDK's classes.
 */
import { isAbortError, llmError, type LlmError } from '../core/errors.js';
import { isContextOverflow, isNetworkFailure, redirectNotFollowed } from './kit/error-table.js';

interface ErrorShape {
  name?: string;
  message?: string;
  status?: number;
  type?: string | null;
  apiMessage?: string | null;
  error?: { error?: { type?: string; message?: string } } | null;
  cause?: unknown;
  code?: string;
  headers?: unknown;
}

export interface ErrorContext {
  signal?: AbortSignal;
  /** Where requests go, named in connection errors. */
  baseURL: string;
}

export function mapAnthropicError(err: unknown, ctx: ErrorContext): LlmError {
  if (isAbortError(err, ctx.signal)) return llmError('cancelled', 'Request cancelled.');
  const e = (err && typeof err === 'object' ? err : { message: String(err) }) as ErrorShape;
  const host = hostOf(ctx.baseURL);
  if (e.name === 'APIConnectionTimeoutError') {
    return llmError('network', `Anthropic request to ${host} timed out; check your connection and retry.`);
  }
  if (e.name === 'APIConnectionError') {
    return llmError('network', `Could not reach Anthropic at ${host} (${causeText(e) || 'connection error'}).`);
  }
  const type = e.type ?? e.error?.error?.type ?? undefined;
  const detail = e.apiMessage ?? e.error?.error?.message ?? e.message ?? 'unknown error';
  const moved = redirectNotFollowed(e.status, e.headers, ctx.baseURL);
  if (moved) return llmError('other', `Anthropic at ${host} ${moved} (ANTHROPIC_BASE_URL).`, e.status);
  if (typeof e.status === 'number') return fromStatus(e.status, type, detail);
  if (type) return fromStreamErrorEvent(type, detail);
  if (isNetworkFailure(e)) {
    return llmError('network', `Connection to Anthropic at ${host} was lost mid-reply (${causeText(e) || e.message}).`);
  }
  return llmError('other', `Anthropic request failed: ${e.message ?? String(err)}`);
}

function fromStatus(status: number, type: string | undefined, detail: string): LlmError {
  const what = `${status}${type ? ` ${type}` : ''}: ${detail}`;
  if ((status === 400 || status === 413) && isContextOverflow(detail)) {
    return llmError('context_window', `The conversation no longer fits the model's context window (${what}).`, status);
  }
  if (status === 401 || status === 403) {
    return llmError('auth', `Anthropic rejected the request (${what}); check ANTHROPIC_API_KEY.`, status);
  }
  if (status === 429) return llmError('rate_limit', `Anthropic rate limit reached (${what}); wait a moment and retry.`, status);
  if (status === 529 || type === 'overloaded_error') {
    return llmError('rate_limit', `Anthropic is overloaded (${what}); retry shortly.`, status);
  }
  if (status >= 500) return llmError('other', `Anthropic server error (${what}).`, status);
  return llmError('other', `Anthropic refused the request (${what}).`, status);
}

/** An `event: error` inside an otherwise successful stream has a type but no HTTP status. */
function fromStreamErrorEvent(type: string, detail: string): LlmError {
  const what = `${type}: ${detail}`;
  if (type === 'overloaded_error' || type === 'rate_limit_error') {
    return llmError('rate_limit', `Anthropic stopped the reply (${what}); retry shortly.`);
  }
  if (type === 'invalid_request_error' && isContextOverflow(detail)) {
    return llmError('context_window', `The conversation no longer fits the model's context window (${what}).`);
  }
  if (type === 'authentication_error' || type === 'permission_error') {
    return llmError('auth', `Anthropic rejected the request (${what}); check ANTHROPIC_API_KEY.`);
  }
  return llmError('other', `Anthropic stopped the reply with an error (${what}).`);
}

function causeText(e: ErrorShape): string {
  const parts: string[] = [];
  for (let cur: unknown = e.cause, depth = 0; cur && typeof cur === 'object' && depth < 5; depth++) {
    const c = cur as ErrorShape;
    if (c.message) parts.push(c.message);
    cur = c.cause;
  }
  if (parts.length === 0 && e.name !== 'APIConnectionError' && e.message) parts.push(e.message);
  return parts.join(': ');
}

function hostOf(baseURL: string): string {
  try {
    return new URL(baseURL).host;
  } catch {
    return baseURL;
  }
}
