/**
 * `fetch` over Node's own HTTP client (node:http / node:https): what the provider SDKs that take
 * a `fetch` (Anthropic, OpenAI Chat/Responses, Codex), MCP's HTTP transports and web_fetch speak
 * through, and Genkit's requests to Gemini once a proxy is set (genkit-runtime.ts). Proxies: Keen's own CONNECT tunnel
 * (proxy.ts `tunnelAgent`, connect-tunnel.ts), which a timeout or an abort also ends.
 *
 * Why not the built-in fetch: Node 20's fetch (undici) compiles its llhttp WebAssembly parser on
 * the first request and V8 then tiers that module up on a background thread, which a finishing
 * process waits for (the measured cost: docs/performance.md). node:http parses with the llhttp compiled into Node itself.
 *
 * Contract, as fetch for what the SDKs use:
 * - any body `Request` accepts (buffered: the SDKs send JSON); method, headers, `signal`;
 * - a `Response` (status, statusText, headers, a streaming web body): fetch-response.ts's, whose
 *   headers are fetch-headers.ts's — Node's own classes live in undici, slow to load;
 *   `sdkFetch(…, { web: true })` converts to Node's Response for code Keen does not bundle;
 * - a failed connection rejects with `TypeError('fetch failed', { cause })`, a body cut short
 *   errors the stream with `TypeError('terminated', { cause })`, an abort rejects (or errors the
 *   body) with the signal's reason, a DOMException `AbortError` by default — fetch's own shapes,
 *   so the SDKs' and the error table's handling is unchanged;
 * - gzip / deflate / br bodies are decoded (nothing asks for them: no Accept-Encoding is added);
 * - redirects are followed (at most 20) only within the same origin: a credential header
 *   (`x-api-key`, `authorization`) never goes to another host. A cross-origin redirect is handed
 *   back as the 3xx response; the error maps name where it pointed (kit/error-table.ts). With
 *   `redirect: 'manual'` every 3xx comes back as it is (web_fetch follows redirects itself);
 *   `redirect: 'error'` and a 21st redirect reject as fetch does;
 * - time limits, as undici's (`HttpTimeouts`; the model APIs get MODEL_API_TIMEOUTS): connect,
 *   response headers, silence within a body — each fails with undici's error code as the cause;
 * - any status, 999 included (`new Response` alone refuses those outside 200–599).
 * Connections are reused through Node's global agents (keep-alive; idle sockets do not hold the
 * process open), or through the proxy tunnel's agent `options.agentFor` gives.
 */
import { type Agent, type IncomingMessage, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type Zlib from 'node:zlib';
import { CONNECT_LIMIT_MS } from './connect-limit.js';
import { FetchHeaders } from './fetch-headers.js';
import { FetchResponse, toWebResponse } from './fetch-response.js';
import { proxyConfigured, tunnelAgent } from './proxy.js';
import { TUNNEL_SIGNAL } from './tunnel-signal.js';

const MAX_REDIRECTS = 20;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

interface Outgoing {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: Uint8Array | undefined;
  signal: AbortSignal | undefined;
}

/**
 * The fetch the SDKs and MCP's HTTP transports get: {@link httpFetch}, tunnelling through the
 * proxy `env` names (HTTPS_PROXY / HTTP_PROXY, NO_PROXY honoured; proxy.ts `tunnelAgent`).
 */
export function sdkFetch(env: NodeJS.ProcessEnv, timeouts: HttpTimeouts = MODEL_API_TIMEOUTS, { web = false }: { web?: boolean } = {}): typeof fetch {
  const agentFor = proxyConfigured(env) ? (url: URL) => tunnelAgent(url.href, env) : undefined;
  if (web) return (async (input: string | URL | Request, init?: RequestInit) => toWebResponse(await httpFetch(input, init, { ...timeouts, agentFor }))) as typeof fetch;
  return ((input: string | URL | Request, init?: RequestInit) => httpFetch(input, init, { ...timeouts, agentFor })) as typeof fetch;
}

/** Time limits of one request; each unset one is none. */
export interface HttpTimeouts {
  /** DNS, TCP, a proxy's CONNECT and the TLS handshake, until the socket is ready. */
  connectTimeoutMs?: number;
  /** From the request's start until the response headers. */
  headersTimeoutMs?: number;
  /** The longest silence between two chunks of the response body. */
  bodyTimeoutMs?: number;
}

/**
 * The model APIs' limits: undici's defaults, which Node's fetch applied before (10 s to connect,
 * which `KEEN_CONNECT_TIMEOUT_MS` sets: connect-limit.ts; 300 s to the headers, 300 s of silence
 * in a body). A stream that stalls silently (a dropped network, a proxy that stops forwarding)
 * fails as a network error and is retried, instead of hanging the turn. MCP's HTTP transports pass none: their event streams may sit idle.
 */
export const MODEL_API_TIMEOUTS: HttpTimeouts = { connectTimeoutMs: CONNECT_LIMIT_MS, headersTimeoutMs: 300_000, bodyTimeoutMs: 300_000 };

/** How {@link httpFetch} connects: the agent for a URL (a proxy tunnel, else Node's global agents), and its time limits. */
export interface HttpFetchOptions extends HttpTimeouts {
  agentFor?(url: URL): Promise<Agent> | undefined;
}

/** An error shaped as undici's for the same failure (the error table knows the codes). */
function timeoutError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** A fetch-compatible function over node:http (see the file comment for the contract). */
export async function httpFetch(input: string | URL | Request, init?: RequestInit, options: HttpFetchOptions = {}): Promise<Response> {
  const request = await outgoingRequest(input, init);
  if (request.out.signal?.aborted) throw abortReason(request.out.signal);
  const { redirect } = request;
  let out = request.out;
  for (let hop = 0; ; hop++) {
    const res = await send(out, await options.agentFor?.(out.url), options);
    const location = res.headers.location;
    const status = res.statusCode ?? 0;
    if (redirect === 'manual' || !REDIRECTS.has(status) || !location) return toResponse(res, out, hop > 0, options);
    if (redirect === 'error' || hop >= MAX_REDIRECTS) {
      res.destroy();
      throw new TypeError('fetch failed', { cause: new Error(redirect === 'error' ? `redirected to ${location}` : `more than ${MAX_REDIRECTS} redirects`) });
    }
    const next = new URL(location, out.url);
    if (next.origin !== out.url.origin) return toResponse(res, out, hop > 0, options);
    res.resume();
    const asGet = status === 303 || ((status === 301 || status === 302) && out.method === 'POST');
    out = asGet ? { ...out, url: next, method: 'GET', body: undefined, headers: withoutBodyHeaders(out.headers) } : { ...out, url: next };
  }
}

const METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH']);
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * The request fetch would send for `input` and `init`. What the SDKs send (a URL, headers, a
 * string or bytes body) is read directly, as `new Request` would read it; anything else (a
 * `Request`, a Blob, FormData or stream body) goes through Node's `Request`.
 */
async function outgoingRequest(input: string | URL | Request, init: RequestInit | undefined): Promise<{ out: Outgoing; redirect: RequestRedirect }> {
  const body = init?.body;
  const plainBody = body === undefined || body === null || typeof body === 'string' || body instanceof URLSearchParams || body instanceof ArrayBuffer || ArrayBuffer.isView(body);
  if ((typeof input !== 'string' && !(input instanceof URL)) || !plainBody) {
    const request = new Request(input, { ...init, ...(init?.body ? { duplex: 'half' } : {}) } as RequestInit);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const bytes = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    return { out: { url: new URL(request.url), method: request.method, headers, body: bytes, signal: signal ?? undefined }, redirect: request.redirect };
  }
  const url = new URL(input);
  if (url.username || url.password) throw new TypeError(`Request cannot be constructed from a URL that includes credentials: ${url.origin}`);
  const asked = init?.method ?? 'GET';
  if (!TOKEN.test(asked)) throw new TypeError(`'${asked}' is not a valid HTTP method.`);
  const method = METHODS.has(asked.toUpperCase()) ? asked.toUpperCase() : asked;
  if (FORBIDDEN_METHODS.has(asked.toUpperCase())) throw new TypeError(`'${asked}' HTTP method is unsupported.`);
  const headers = new FetchHeaders(init?.headers as ConstructorParameters<typeof FetchHeaders>[0]);
  let bytes: Uint8Array | undefined;
  if (body !== undefined && body !== null) {
    if (method === 'GET' || method === 'HEAD') throw new TypeError('Request with GET/HEAD method cannot have body.');
    if (typeof body === 'string' || body instanceof URLSearchParams) {
      if (!headers.has('content-type')) headers.set('content-type', typeof body === 'string' ? 'text/plain;charset=UTF-8' : 'application/x-www-form-urlencoded;charset=UTF-8');
      bytes = Buffer.from(String(body));
    } else {
      const view = body instanceof ArrayBuffer ? new Uint8Array(body) : new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
      bytes = new Uint8Array(view);
    }
  }
  const plain: Record<string, string> = {};
  headers.forEach((value, name) => {
    plain[name] = value;
  });
  return { out: { url, method, headers: plain, body: bytes, signal: init?.signal ?? undefined }, redirect: init?.redirect ?? 'follow' };
}

function send(out: Outgoing, agent: Agent | undefined, limits: HttpTimeouts): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (out.signal?.aborted) {
      reject(abortReason(out.signal));
      return;
    }
    // node:https (and TLS with it) loads at the first https request, not for a local server.
    const request = out.url.protocol === 'https:' ? process.getBuiltinModule('node:https').request : httpRequest;
    const headers = { ...out.headers };
    if (out.body) headers['content-length'] = String(out.body.byteLength);
    // Through an agent (a proxy tunnel), a timeout or an abort also cancels the tunnel's set-up.
    const tunnel = agent ? new AbortController() : undefined;
    const req = request(out.url, { method: out.method, headers, ...(agent ? { agent, [TUNNEL_SIGNAL]: tunnel?.signal } : {}) });
    const timers: NodeJS.Timeout[] = [];
    let settled = false;
    const settle = () => {
      settled = true;
      for (const t of timers) clearTimeout(t);
      out.signal?.removeEventListener('abort', onAbort);
    };
    // A timeout or an abort rejects at once: a request still waiting for its socket (a proxy tunnel
    // being set up) emits no 'error' when destroyed until a socket arrives, maybe never.
    const fail = (err: unknown, cause: Error) => {
      if (settled) return;
      settle();
      reject(err);
      tunnel?.abort(cause);
      req.destroy(cause);
    };
    const onAbort = () => {
      const reason = abortReason(out.signal!);
      fail(reason, reason as Error);
    };
    out.signal?.addEventListener('abort', onAbort, { once: true });
    const limit = (ms: number | undefined, code: string, message: string) => {
      if (ms === undefined) return undefined;
      // Unref'd: a limit fails a stalled request; it never keeps the process alive by itself.
      const timer = setTimeout(() => {
        const err = timeoutError(code, message);
        fail(new TypeError('fetch failed', { cause: err }), err);
      }, ms).unref();
      timers.push(timer);
      return timer;
    };
    const connecting = limit(limits.connectTimeoutMs, 'UND_ERR_CONNECT_TIMEOUT', `could not connect to ${out.url.host} within ${limits.connectTimeoutMs} ms`);
    limit(limits.headersTimeoutMs, 'UND_ERR_HEADERS_TIMEOUT', `${out.url.host} sent no response headers within ${limits.headersTimeoutMs} ms`);
    req.once('socket', (socket) => {
      // Connected means TCP and, for TLS, the handshake too (a reused socket has done both). Node
      // has no public flag for a finished handshake (getProtocol() names the version before it);
      // `_secureEstablished` is the one its own TLS code reads.
      const handshaking = 'encrypted' in socket && (socket as TLSSocket & { _secureEstablished?: boolean })._secureEstablished === false;
      if (handshaking) socket.once('secureConnect', () => clearTimeout(connecting));
      else if (socket.connecting) socket.once('connect', () => clearTimeout(connecting));
      else clearTimeout(connecting);
    });
    req.once('response', (res) => {
      if (settled) {
        res.destroy();
        return;
      }
      settle();
      resolve(res);
    });
    req.once('error', (err) => {
      if (settled) return;
      settle();
      reject(out.signal?.aborted ? abortReason(out.signal) : new TypeError('fetch failed', { cause: err }));
    });
    req.end(out.body);
  });
}

function toResponse(res: IncomingMessage, out: Outgoing, redirected: boolean, limits: HttpTimeouts): Response {
  const status = res.statusCode ?? 0;
  const noBody = out.method === 'HEAD' || status === 204 || status === 205 || status === 304;
  try {
    const headers = new FetchHeaders();
    for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
    if (noBody) res.resume();
    const body = noBody ? null : webBody(decoded(res), res, out.signal, limits.bodyTimeoutMs);
    // A response's URL has no fragment (fetch drops it).
    const url = out.url.hash ? out.url.href.slice(0, out.url.href.indexOf('#')) : out.url.href;
    return new FetchResponse(body, { status, statusText: res.statusMessage ?? '', headers, url, redirected });
  } catch (err) {
    res.destroy();
    throw new TypeError('fetch failed', { cause: err });
  }
}

/** The body decoded as fetch would (Content-Encoding gzip, deflate, br; several in order). */
function decoded(res: IncomingMessage): Readable {
  const codings = (res.headers['content-encoding'] ?? '')
    .toLowerCase()
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c && c !== 'identity');
  let stream: Readable = res;
  if (!codings.length) return stream;
  // Loaded only for an encoded body (nothing asks for one).
  const zlib = createRequire(import.meta.url)('node:zlib') as typeof Zlib;
  for (const coding of codings.reverse()) {
    const decoder =
      coding === 'br' ? zlib.createBrotliDecompress() : coding === 'deflate' ? zlib.createInflate() : coding === 'gzip' || coding === 'x-gzip' ? zlib.createGunzip() : undefined;
    if (!decoder) break;
    stream.once('error', (err) => decoder.destroy(err));
    stream = stream.pipe(decoder);
  }
  return stream;
}

/** A web stream over `stream` with backpressure; errors and aborts take fetch's shapes. */
function webBody(stream: Readable, res: IncomingMessage, signal: AbortSignal | undefined, idleMs: number | undefined): ReadableStream<Uint8Array<ArrayBuffer>> {
  let done = false;
  let onAbort: (() => void) | undefined;
  let idle: NodeJS.Timeout | undefined;
  // Silence longer than `idleMs` between chunks fails the body (before the close it causes). The
  // clock runs only while the consumer waits for data: a paused body waits on the consumer.
  let watch = () => {};
  return new ReadableStream<Uint8Array<ArrayBuffer>>(
    {
      start(controller) {
        const fail = (err: unknown) => {
          if (done) return;
          done = true;
          clearTimeout(idle);
          if (onAbort) signal?.removeEventListener('abort', onAbort);
          controller.error(signal?.aborted ? abortReason(signal) : new TypeError('terminated', { cause: err }));
        };
        onAbort = () => {
          fail(undefined);
          res.destroy();
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        watch = () => {
          if (idleMs === undefined || done) return;
          clearTimeout(idle);
          idle = setTimeout(() => {
            fail(timeoutError('UND_ERR_BODY_TIMEOUT', `the response body was silent for ${idleMs} ms`));
            res.destroy();
          }, idleMs);
          idle.unref();
        };
        watch();
        stream.on('data', (chunk: Buffer) => {
          if (done) return;
          controller.enqueue(new Uint8Array(chunk.buffer as ArrayBuffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 1) > 0) watch();
          else {
            stream.pause();
            clearTimeout(idle);
          }
        });
        stream.once('end', () => {
          if (done) return;
          done = true;
          clearTimeout(idle);
          if (onAbort) signal?.removeEventListener('abort', onAbort);
          controller.close();
        });
        stream.once('error', fail);
        res.once('aborted', () => fail(new Error('other side closed')));
        res.once('close', () => {
          if (!res.complete) fail(new Error('other side closed'));
        });
      },
      pull() {
        watch();
        stream.resume();
      },
      cancel() {
        done = true;
        clearTimeout(idle);
        if (onAbort) signal?.removeEventListener('abort', onAbort);
        res.destroy();
      },
    },
    { highWaterMark: 16 },
  );
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

function withoutBodyHeaders(headers: Record<string, string>): Record<string, string> {
  const rest = { ...headers };
  for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']) delete rest[name];
  return rest;
}
