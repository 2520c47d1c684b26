import type { LlmError } from '../core/errors.js';
import { isAbortError, llmError } from '../core/errors.js';
import { isContextOverflow, isNetworkFailure, NETWORK_TEXT } from './kit/error-table.js';

interface GenkitLikeError {
  name?: string;
  status?: string;
  code?: number;
  message?: string;
  detail?: { error?: { message?: string; code?: number; status?: string } };
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

/** Worth another attempt: throttling, overload, or no connection at all. */
export function isRetryable(err: unknown): boolean {
  const status = httpStatusOf(err);
  if (status !== undefined) return status === 429 || status === 500 || status === 503 || status === 504;
  return /fetch failed/i.test((err as GenkitLikeError)?.message ?? '');
}

/** Server-requested delay (Retry-After), when Genkit parsed one. */
export function retryAfterMs(err: unknown): number | undefined {
  const ms = (err as GenkitLikeError)?.responseMetadata?.retryAfterMs;
  return typeof ms === 'number' && ms >= 0 ? ms : undefined;
}

/** Maps anything Genkit or the Google AI plugin throws to one readable line and a kind. */
export function genkitError(err: unknown, ctx: { model: string; signal?: AbortSignal; attempts?: number }): LlmError {
  if (isAbortError(err, ctx.signal)) return llmError('cancelled', 'Request cancelled.');
  const status = httpStatusOf(err);
  const message = serviceMessage(err).trim();
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
