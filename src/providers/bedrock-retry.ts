/**
 * Bedrock under Keen's retry policy (net/retry-fetch.ts): the SDK's own retry strategy is off
 * (`maxAttempts: 1`; its waits can be neither capped nor cancelled), and the ConverseStream call
 * is retried here, before any of the reply streamed, with the same cap and announcement as the
 * other providers.
 */
import { isAbortError } from '../core/errors.js';
import { planRetry, retryableStatus, waitFor, type RetryPolicy } from '../net/retry-fetch.js';
import { isNetworkFailure } from './kit/error-table.js';
import type { RetryWaitEvent } from './kit/retry-events.js';

interface SdkErrorLike {
  name?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number; attempts?: number };
  $response?: { headers?: Record<string, string | undefined> };
}

const THROTTLED = new Set(['ThrottlingException', 'ServiceQuotaExceededException', 'TooManyRequestsException', 'ServiceUnavailableException', 'ModelNotReadyException']);

/**
 * Whether a failed Bedrock call is worth another attempt, and with which status (0: no
 * connection): throttling, 408/409/429/5xx, a broken connection. Undefined: not retryable. Pure.
 */
export function bedrockRetryStatus(err: unknown): number | undefined {
  const e = (err ?? {}) as SdkErrorLike;
  const status = e.$metadata?.httpStatusCode;
  if (THROTTLED.has(e.name ?? '')) return status ?? 429;
  if (status !== undefined) return retryableStatus(status) ? status : undefined;
  return isNetworkFailure(err) ? 0 : undefined;
}

/** The wait a failed response asks for (`retry-after`, seconds), when it names one. Pure. */
export function bedrockRequestedWaitMs(err: unknown): number | undefined {
  const headers = ((err ?? {}) as SdkErrorLike).$response?.headers ?? {};
  const value = Object.entries(headers).find(([k]) => k.toLowerCase() === 'retry-after')?.[1];
  const secs = value === undefined ? Number.NaN : Number.parseFloat(value);
  return Number.isFinite(secs) && secs >= 0 ? secs * 1000 : undefined;
}

/**
 * Calls `attempt` until it succeeds or the policy gives up, yielding a `retry_wait` before each
 * wait; throws the last error (its `$metadata.attempts` the attempts made, and the note when the
 * server asked for a wait beyond the cap).
 */
export async function* sendWithRetries<T>(policy: RetryPolicy, host: string, signal: AbortSignal, attempt: () => Promise<T>): AsyncGenerator<RetryWaitEvent, T> {
  for (let retry = 1; ; retry++) {
    try {
      return await attempt();
    } catch (err) {
      const status = signal.aborted || isAbortError(err, signal) ? undefined : bedrockRetryStatus(err);
      const plan = status === undefined ? ({ kind: 'give_up' } as const) : planRetry(policy, retry, bedrockRequestedWaitMs(err));
      if (plan.kind !== 'wait') throw spent(err, retry, plan.kind === 'too_long' ? plan.note : undefined);
      yield { type: 'retry_wait', wait: { host, status: status ?? 0, waitMs: plan.waitMs, retry, of: policy.maxRetries } };
      await waitFor(plan.waitMs, signal);
    }
  }
}

/** The error as the error map reads it: the attempts Keen made, and the cap's note. */
function spent(err: unknown, attempts: number, note: string | undefined): unknown {
  if (!err || typeof err !== 'object') return err;
  const e = err as SdkErrorLike;
  if (e.$metadata) e.$metadata.attempts = attempts;
  if (note && typeof e.message === 'string') e.message = `${e.message.replace(/[.\s]+$/, '')}; ${note}`;
  return err;
}
