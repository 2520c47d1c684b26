import { oneLine } from './one-line.js';

/** The kinds a provider failure is mapped to. The loop and the UI decide by kind, never by text. */
export type ErrorKind = 'context_window' | 'auth' | 'rate_limit' | 'network' | 'cancelled' | 'other';

export interface LlmError {
  kind: ErrorKind;
  /** One line a user can read: what failed and, where known, what to do. */
  message: string;
  status?: number;
}

/**
 * The `code` of the error a proxy's refusal of a CONNECT tunnel becomes (net/connect-tunnel.ts),
 * with the proxy's `status` beside it: retry-fetch.ts retries a refusal only when the status is
 * one it would retry from a server (a 503 from a busy proxy), not a 407 or a 403.
 */
export const PROXY_REFUSED = 'KEEN_PROXY_REFUSED';

export function llmError(kind: ErrorKind, message: string, status?: number): LlmError {
  return status === undefined ? { kind, message: oneLine(message, 400) } : { kind, message: oneLine(message, 400), status };
}

/** True when an error came from an AbortSignal firing. */
export function isAbortError(err: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return true;
  if (!err || typeof err !== 'object') return false;
  const name = (err as { name?: string }).name ?? '';
  return name === 'AbortError' || name === 'APIUserAbortError' || /abort/i.test(name);
}
