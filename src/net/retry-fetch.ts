/**
 * Keen's one retry policy, for every provider. The SDKs would wait as long as `retry-after` says
 * (a day, for `retry-after: 86400`) and the OpenAI SDK's wait cannot be cancelled. Here:
 *
 * - 408/409/429/5xx and connection failures are retried `maxRetries` times (not a proxy's refusal
 *   of the tunnel with a status retrying cannot change: 407, 403), waiting what the server asks
 *   (`retry-after-ms` / `retry-after`, Gemini's `RetryInfo.retryDelay`), else an exponential
 *   backoff (0.5 s … 8 s);
 * - a wait longer than the cap (`maxRetryWait`, default 60 s) is not waited: the error is handed
 *   back at once, its message naming the wait, so the user sees one line;
 * - every wait is reported to the request's own listener (a `retry_wait` stream event) before it
 *   starts, and ends within a few milliseconds of Ctrl+C (the request's abort signal).
 *
 * The fetch-based SDKs (Anthropic, OpenAI Chat/Responses, Codex) get `maxRetries: 0` and
 * `fetch: retryingFetch(policy, …)`, and pass the listener per request ({@link withRetryListener}).
 * Bedrock and Genkit loop with {@link planRetry} and {@link waitFor} around their SDK call.
 */
import { PROXY_REFUSED } from '../core/errors.js';
import type { RetryWait } from '../core/events.js';

export type { RetryWait };

/** How often and how long Keen retries; one per adapter (config `maxRetries`, `maxRetryWait`). */
export interface RetryPolicy {
  maxRetries: number;
  /** The longest wait before a retry; a server asking for more gets no retry. */
  maxWaitMs: number;
}

const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_MAX_RETRY_WAIT_MS = 60_000;

/** The policy from the settings (`maxRetryWait` in ms), defaults filled in. */
export function retryPolicy(settings: { maxRetries?: number; maxRetryWaitMs?: number }): RetryPolicy {
  return {
    maxRetries: Math.max(0, settings.maxRetries ?? DEFAULT_MAX_RETRIES),
    maxWaitMs: settings.maxRetryWaitMs === undefined ? DEFAULT_MAX_RETRY_WAIT_MS : Math.max(0, settings.maxRetryWaitMs),
  };
}

/** Receives the waits of one request. */
export type RetryListener = (wait: RetryWait) => void;

const LISTENER = Symbol('keen.retryListener');

/**
 * Request options that carry `listener` to {@link retryingFetch} (the SDKs pass `fetchOptions`
 * through to the fetch they were given).
 */
export function withRetryListener(listener: RetryListener): Omit<RequestInit, 'body' | 'headers' | 'method' | 'signal'> {
  return { [LISTENER]: listener } as Omit<RequestInit, 'body' | 'headers' | 'method' | 'signal'>;
}

/** What to do about retry number `retry` (1-based), given the wait the server asked for. */
export type RetryPlan = { kind: 'wait'; waitMs: number } | { kind: 'too_long'; waitMs: number; note: string } | { kind: 'give_up' };

/** The plan for retry number `retry` (1-based) when the server asked for `askedMs` (or nothing). Pure but for `random`. */
export function planRetry(policy: RetryPolicy, retry: number, askedMs: number | undefined, random = Math.random): RetryPlan {
  if (retry > policy.maxRetries) return { kind: 'give_up' };
  // Keen's own backoff stays under the cap; a server's request beyond it is refused.
  if (askedMs === undefined) return { kind: 'wait', waitMs: Math.min(backoffMs(retry, random), policy.maxWaitMs) };
  if (askedMs > policy.maxWaitMs) return { kind: 'too_long', waitMs: askedMs, note: tooLongNote(askedMs, policy.maxWaitMs) };
  return { kind: 'wait', waitMs: askedMs };
}

/** The note an error gets when the server asked for a wait longer than the cap. */
function tooLongNote(waitMs: number, maxWaitMs: number): string {
  return `the server asked to wait ${seconds(waitMs)} before retrying, more than Keen waits (${seconds(maxWaitMs)}, config maxRetryWait)`;
}

/** One line for a wait, e.g. for stderr. */
export function describeRetryWait(w: RetryWait): string {
  const what = w.status ? `answered ${w.status}` : 'could not be reached';
  return `${w.host} ${what}; retrying in ${seconds(w.waitMs)} (retry ${w.retry} of ${w.of}; Ctrl+C stops)`;
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1).replace(/\.0$/, '')} s` : `${Math.round(ms / 1000)} s`;
}

const RETRY_STATUS = new Set([408, 409, 429]);

/** A status a retry may fix: 408, 409, 429, 5xx (also used for a proxy's refusal of a tunnel). */
export function retryableStatus(status: number): boolean {
  return RETRY_STATUS.has(status) || status >= 500;
}

/** A proxy refused the tunnel with a status retrying cannot change (407 credentials, 403 policy). */
function refusedForGood(err: unknown): boolean {
  for (let e = err as { code?: unknown; status?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.code === PROXY_REFUSED) return typeof e.status !== 'number' || !retryableStatus(e.status);
  }
  return false;
}

/** The wait a response asks for, in ms, or undefined when it names none. Pure. */
export function requestedWaitMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const after = headers.get('retry-after');
  if (!after) return undefined;
  const secs = Number.parseFloat(after);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const date = Date.parse(after);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

function backoffMs(retry: number, random: () => number): number {
  return Math.min(500 * 2 ** (retry - 1), 8000) * (1 - random() * 0.25);
}

function abortError(): Error {
  const err = new Error('The operation was aborted.');
  err.name = 'AbortError';
  return err;
}

/** Waits `ms`; rejects with an AbortError as soon as `signal` fires. */
export function waitFor(ms: number, signal: AbortSignal | null | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(timer);
      reject(abortError());
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The response with its error message extended by `note` (JSON `error.message` or the text). */
async function withNote(res: Response, note: string): Promise<Response> {
  const text = await res.text().catch(() => '');
  let body = text;
  try {
    const json = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    if (json && typeof json.error === 'object' && json.error && typeof json.error.message === 'string') json.error.message += `; ${note}`;
    else if (typeof json?.message === 'string') json.message += `; ${note}`;
    else throw new Error('no message');
    body = JSON.stringify(json);
  } catch {
    body = JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: `${text.slice(0, 200).trim() || `HTTP ${res.status}`}; ${note}` } });
  }
  const headers = new Headers(res.headers);
  headers.set('content-type', 'application/json');
  headers.delete('content-length');
  headers.delete('content-encoding');
  return new Response(body, { status: res.status, statusText: res.statusText, headers });
}

/**
 * A fetch that retries as described above, then returns the last response (or throws the last
 * error). Each request's waits go to the listener its init carries ({@link withRetryListener}).
 */
export function retryingFetch(policy: RetryPolicy, inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const { listener, init: sent } = takeListener(init);
    const signal = sent?.signal;
    const host = hostOf(input);
    const announce = (status: number, waitMs: number, retry: number) => listener?.({ host, status, waitMs, retry, of: policy.maxRetries });
    for (let retry = 1; ; retry++) {
      let res: Response;
      try {
        res = await inner(input, retry === 1 ? sent : countRetry(sent, retry - 1));
      } catch (err) {
        if (signal?.aborted || refusedForGood(err)) throw err;
        const plan = planRetry(policy, retry, undefined);
        if (plan.kind !== 'wait') throw err;
        announce(0, plan.waitMs, retry);
        await waitFor(plan.waitMs, signal);
        continue;
      }
      if (res.ok && /text\/html/i.test(res.headers.get('content-type') ?? '')) return htmlInsteadOfApi(res, host);
      if (!retryableStatus(res.status)) return res;
      const plan = planRetry(policy, retry, requestedWaitMs(res.headers));
      if (plan.kind === 'give_up') return res;
      // Not announced: the error line itself names the wait (one line, not two).
      if (plan.kind === 'too_long') return withNote(res, plan.note);
      announce(res.status, plan.waitMs, retry);
      await res.body?.cancel().catch(() => undefined);
      await waitFor(plan.waitMs, signal);
    }
  };
}

function takeListener(init: RequestInit | undefined): { listener?: RetryListener; init?: RequestInit } {
  const listener = (init as { [LISTENER]?: RetryListener } | undefined)?.[LISTENER];
  if (!listener || !init) return { init };
  const { [LISTENER]: _, ...rest } = init as RequestInit & { [LISTENER]?: RetryListener };
  return { listener, init: rest };
}

/** The host of a URL, for the announcement; "the server" when it cannot be parsed. */
function hostOf(input: Parameters<typeof fetch>[0]): string {
  try {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    return new URL(url).host;
  } catch {
    return 'the server';
  }
}

/** The SDKs tell the server which retry a request is; keep that true now that Keen retries. */
function countRetry(init: RequestInit | undefined, count: number): RequestInit | undefined {
  if (!init?.headers) return init;
  const headers = new Headers(init.headers);
  if (!headers.has('x-stainless-retry-count')) return init;
  headers.set('x-stainless-retry-count', String(count));
  return { ...init, headers };
}

/**
 * A 200 with an HTML page (a captive portal, a login page, a base URL pointing at a website) is
 * not an API reply: hand the SDK a 502 whose message says what came back, instead of letting the
 * stream parser report a closed connection.
 */
async function htmlInsteadOfApi(res: Response, host: string): Promise<Response> {
  const page = await res.text().catch(() => '');
  const title = /<title[^>]*>([^<]{1,120})<\/title>/i.exec(page)?.[1]?.trim();
  const what = title ? `an HTML page titled "${title}"` : 'an HTML page';
  const message = `${host} answered HTTP 200 with ${what} instead of an API reply; check the base URL, a proxy or a captive portal`;
  return new Response(JSON.stringify({ type: 'error', error: { type: 'api_error', message } }), {
    status: 502,
    headers: { 'content-type': 'application/json' },
  });
}
