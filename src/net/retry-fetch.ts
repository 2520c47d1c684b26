/**
 * Retries for the SDKs that take a `fetch` (Anthropic, OpenAI Chat/Responses, Codex), in one
 * place. The SDKs would wait as long as `retry-after` says (a day, for `retry-after: 86400`)
 * and the OpenAI SDK's wait cannot be cancelled. Here:
 *
 * - 408/409/429/5xx and connection failures are retried `maxRetries` times (not a proxy's refusal
 *   of the tunnel with a status retrying cannot change: 407, 403), waiting what
 *   `retry-after-ms` / `retry-after` asks, else an exponential backoff (0.5 s … 8 s);
 * - a wait longer than the cap (`maxRetryWait`, default 60 s) is not waited: the response is
 *   handed back at once, its error message naming the wait, so the user sees one line;
 * - every wait is announced (stderr in headless mode, a notice in the REPL) and ends within
 *   a few milliseconds of Ctrl+C (the request's abort signal).
 *
 * The SDK client is built with `maxRetries: 0` and `fetch: retryingFetch(...)`.
 */
import { PROXY_REFUSED } from '../core/errors.js';

/** A wait Keen is about to do before retrying a request. */
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

export const DEFAULT_MAX_RETRY_WAIT_MS = 60_000;

type Listener = (wait: RetryWait) => void;
const listeners = new Set<Listener>();
let maxWaitMs = DEFAULT_MAX_RETRY_WAIT_MS;

/** Announce retry waits to `listener` (headless: stderr; REPL: a notice). Returns the unsubscribe. */
export function onRetryWait(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The longest wait Keen does before a retry (config `maxRetryWait`, seconds). */
export function setMaxRetryWait(ms: number | undefined): void {
  maxWaitMs = ms === undefined ? DEFAULT_MAX_RETRY_WAIT_MS : Math.max(0, ms);
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

function backoffMs(retry: number): number {
  return Math.min(500 * 2 ** (retry - 1), 8000) * (1 - Math.random() * 0.25);
}

function abortError(): Error {
  const err = new Error('The operation was aborted.');
  err.name = 'AbortError';
  return err;
}

function sleep(ms: number, signal: AbortSignal | null | undefined): Promise<void> {
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

/** A fetch that retries as described above, then returns the last response (or throws the last error). */
export function retryingFetch(maxRetries: number, inner: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    const signal = init?.signal;
    const host = hostOf(input);
    for (let retry = 1; ; retry++) {
      let res: Response;
      try {
        res = await inner(input, retry === 1 ? init : countRetry(init, retry - 1));
      } catch (err) {
        if (signal?.aborted || retry > maxRetries || refusedForGood(err)) throw err;
        const wait = backoffMs(retry);
        announce({ host, status: 0, waitMs: wait, retry, of: maxRetries });
        await sleep(wait, signal);
        continue;
      }
      if (res.ok && /text\/html/i.test(res.headers.get('content-type') ?? '')) return htmlInsteadOfApi(res, host);
      if (!retryableStatus(res.status) || retry > maxRetries) return res;
      const asked = requestedWaitMs(res.headers);
      const wait = asked ?? backoffMs(retry);
      if (wait > maxWaitMs) {
        // Not announced: the error line itself names the wait (one line, not two).
        return withNote(res, `the server asked to wait ${seconds(wait)} before retrying, more than Keen waits (${seconds(maxWaitMs)}, config maxRetryWait)`);
      }
      announce({ host, status: res.status, waitMs: wait, retry, of: maxRetries });
      await res.body?.cancel().catch(() => undefined);
      await sleep(wait, signal);
    }
  };
}

function announce(wait: RetryWait): void {
  for (const l of listeners) l(wait);
}

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
