import type { LlmError } from '../core/errors.js';
import { isAbortError, llmError } from '../core/errors.js';
import { retryableStatus } from '../net/retry-fetch.js';
import { isContextOverflow, isNetworkFailure, NETWORK_TEXT } from './kit/error-table.js';

interface GenkitLikeError {
  name?: string;
  status?: string;
  code?: number;
  message?: string;
  detail?: { error?: { message?: string; code?: number; status?: string; details?: unknown } };
  responseMetadata?: { retryAfterMs?: number };
}

const AUTH_TEXT = /api key not valid|api_key_invalid|api key expired|permission denied|unregistered callers/i;

/** HTTP status of a Gemini API failure, from Genkit's error or its message text. */
export function httpStatusOf(err: unknown): number | undefined {
  const e = (err ?? {}) as GenkitLikeError;
  if (typeof e.detail?.error?.code === 'number') return e.detail.error.code;
  const m = /\[(\d{3}) [^\]]*\]/.exec(e.message ?? '');
  if (m) return Number(m[1]);
  return typeof e.code === 'number' && e.code >= 400 && e.code < 600 ? e.code : undefined;
}

/** The service's own message, without Genkit's "Error fetching from <url>: [status]" framing. */
function serviceMessage(err: unknown): string {
  const e = (err ?? {}) as GenkitLikeError;
  const inner = e.detail?.error?.message;
  if (inner) return inner;
  return (e.message ?? String(err)).replace(/^[A-Z_]+: /, '').replace(/^(Error fetching from|Failed to fetch from) \S+: (\[[^\]]*\] )?/, '');
}

/**
 * The status to retry a failed request with (0: no connection), or undefined when another
 * attempt cannot help: 408/409/429/5xx and failed connections are worth one.
 */
export function genkitRetryStatus(err: unknown): number | undefined {
  const status = httpStatusOf(err);
  if (status !== undefined) return retryableStatus(status) ? status : undefined;
  return /fetch failed/i.test((err as GenkitLikeError)?.message ?? '') ? 0 : undefined;
}

/**
 * The wait the service asked for, in ms: Gemini's `google.rpc.RetryInfo` `retryDelay` in the
 * error details (a protobuf Duration, "34.4s"), else a Retry-After header Genkit parsed. Pure.
 */
export function geminiRequestedWaitMs(err: unknown): number | undefined {
  const e = (err ?? {}) as GenkitLikeError;
  const details = e.detail?.error?.details;
  for (const d of Array.isArray(details) ? details : []) {
    const info = d as { '@type'?: unknown; retryDelay?: unknown };
    if (typeof info['@type'] !== 'string' || !info['@type'].endsWith('google.rpc.RetryInfo')) continue;
    const m = typeof info.retryDelay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(info.retryDelay.trim()) : null;
    if (m) return Number(m[1]) * 1000;
  }
  const ms = e.responseMetadata?.retryAfterMs;
  return typeof ms === 'number' && ms >= 0 ? ms : undefined;
}

/** Maps anything Genkit or the Google AI plugin throws to one readable line and a kind. */
export function genkitError(err: unknown, ctx: { model: string; signal?: AbortSignal; attempts?: number; note?: string }): LlmError {
  if (isAbortError(err, ctx.signal)) return llmError('cancelled', 'Request cancelled.');
  const status = httpStatusOf(err);
  const said = serviceMessage(err).trim();
  // The retry policy's note (a wait beyond maxRetryWait) ends the line.
  const message = ctx.note ? `${said.replace(/[.\s]+$/, '')}; ${ctx.note}` : said;
  if (isContextOverflow(message)) {
    return llmError('context_window', `Gemini: the request is larger than ${ctx.model}'s context window: ${message}`, status);
  }
  if (status === 429) {
    const tries = ctx.attempts && ctx.attempts > 1 ? ` after ${ctx.attempts} attempts` : '';
    return llmError('rate_limit', `Gemini rate limit or quota reached${tries}: ${message}`, status);
  }
  if (status === 401 || status === 403 || AUTH_TEXT.test(message)) {
    return llmError('auth', `Gemini rejected the API key: ${message} Check GEMINI_API_KEY (or GOOGLE_API_KEY), or use --provider to pick another provider.`, status);
  }
  if (status === 404) return llmError('other', `Gemini model ${ctx.model} was not found: ${message} Check --model.`, status);
  if (status === undefined && (NETWORK_TEXT.test(message) || isNetworkFailure(err))) {
    return llmError('network', `Connection to the Gemini API failed: ${message}`);
  }
  return llmError('other', `Gemini request failed: ${message}`, status);
}
