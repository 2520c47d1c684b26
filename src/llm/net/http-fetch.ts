/**
 * `fetch` over Node's own HTTP client (node:http / node:https), for the provider SDKs that take a
 * `fetch` (Anthropic, OpenAI Chat/Responses, Codex) when no proxy is set.
 *
 * Why not the built-in fetch: Node 20's fetch (undici) compiles its llhttp WebAssembly parser on
 * the first request and V8 then tiers that module up on a background thread, which a finishing
 * process waits for. Measured here: a first POST to a loopback server 31 ms with fetch against
 * 6.5 ms with node:http, and the process exits ~55 ms later with fetch against < 1 ms (see
 * docs/performance.md). node:http parses with the llhttp compiled into Node itself.
 *
 * Contract, as fetch for what the SDKs use:
 * - any body `Request` accepts (buffered: the SDKs send JSON); method, headers, `signal`;
 * - a real `Response` (status, statusText, headers, a streaming web body);
 * - a failed connection rejects with `TypeError('fetch failed', { cause })`, a body cut short
 *   errors the stream with `TypeError('terminated', { cause })`, an abort rejects (or errors the
 *   body) with the signal's reason, a DOMException `AbortError` by default — fetch's own shapes,
 *   so the SDKs' and the error table's handling is unchanged;
 * - gzip / deflate / br bodies are decoded (nothing asks for them: no Accept-Encoding is added);
 * - redirects are followed (at most 20) only within the same origin: a credential header
 *   (`x-api-key`, `authorization`) never goes to another host. A cross-origin redirect is handed
 *   back as the 3xx response, which the SDK reports as an error naming its status. With
 *   `redirect: 'manual'` every 3xx comes back as it is (web_fetch follows redirects itself).
 * Connections are reused through Node's global agents (keep-alive; idle sockets do not hold the
 * process open), or through the proxy tunnel's agent `options.agentFor` gives.
 */
import http from 'node:http';
import https from 'node:https';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import type Zlib from 'node:zlib';
import { proxyConfigured, tunnelAgent } from './proxy.js';

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
export function sdkFetch(env: NodeJS.ProcessEnv): typeof fetch {
  if (!proxyConfigured(env)) return httpFetch as typeof fetch;
  return ((input: string | URL | Request, init?: RequestInit) => httpFetch(input, init, { agentFor: (url) => tunnelAgent(url.href, env) })) as typeof fetch;
}

/** How {@link httpFetch} connects: the agent for a URL (a proxy tunnel), else Node's global agents. */
export interface HttpFetchOptions {
  agentFor?(url: URL): Promise<http.Agent> | undefined;
}

/** A fetch-compatible function over node:http (see the file comment for the contract). */
export async function httpFetch(input: string | URL | Request, init?: RequestInit, options: HttpFetchOptions = {}): Promise<Response> {
  const request = new Request(input, { ...init, ...(init?.body ? { duplex: 'half' } : {}) } as RequestInit);
  const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
  if (signal?.aborted) throw abortReason(signal);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
  let out: Outgoing = { url: new URL(request.url), method: request.method, headers, body, signal };
  for (let hop = 0; ; hop++) {
    const res = await send(out, await options.agentFor?.(out.url));
    const location = res.headers.location;
    const status = res.statusCode ?? 0;
    if (request.redirect === 'manual' || !REDIRECTS.has(status) || !location || hop >= MAX_REDIRECTS) return toResponse(res, out);
    const next = new URL(location, out.url);
    if (next.origin !== out.url.origin) return toResponse(res, out);
    res.resume();
    const asGet = status === 303 || ((status === 301 || status === 302) && out.method === 'POST');
    out = asGet ? { ...out, url: next, method: 'GET', body: undefined, headers: withoutBodyHeaders(out.headers) } : { ...out, url: next };
  }
}

function send(out: Outgoing, agent: http.Agent | undefined): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (out.signal?.aborted) {
      reject(abortReason(out.signal));
      return;
    }
    const client = out.url.protocol === 'https:' ? https : http;
    const headers = { ...out.headers };
    if (out.body) headers['content-length'] = String(out.body.byteLength);
    const req = client.request(out.url, { method: out.method, headers, ...(agent ? { agent } : {}) });
    const onAbort = () => req.destroy(abortReason(out.signal!) as Error);
    out.signal?.addEventListener('abort', onAbort, { once: true });
    req.once('response', (res) => {
      out.signal?.removeEventListener('abort', onAbort);
      resolve(res);
    });
    req.once('error', (err) => {
      out.signal?.removeEventListener('abort', onAbort);
      reject(out.signal?.aborted ? abortReason(out.signal) : new TypeError('fetch failed', { cause: err }));
    });
    req.end(out.body);
  });
}

function toResponse(res: http.IncomingMessage, out: Outgoing): Response {
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
  const status = res.statusCode ?? 0;
  const noBody = out.method === 'HEAD' || status === 204 || status === 304;
  if (noBody) res.resume();
  const response = new Response(noBody ? null : webBody(decoded(res), res, out.signal), { status, statusText: res.statusMessage ?? '', headers });
  Object.defineProperty(response, 'url', { value: out.url.href });
  return response;
}

/** The body decoded as fetch would (Content-Encoding gzip, deflate, br; several in order). */
function decoded(res: http.IncomingMessage): Readable {
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
function webBody(stream: Readable, res: http.IncomingMessage, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  let done = false;
  let onAbort: (() => void) | undefined;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const fail = (err: unknown) => {
          if (done) return;
          done = true;
          if (onAbort) signal?.removeEventListener('abort', onAbort);
          controller.error(signal?.aborted ? abortReason(signal) : new TypeError('terminated', { cause: err }));
        };
        onAbort = () => {
          fail(undefined);
          res.destroy();
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        stream.on('data', (chunk: Buffer) => {
          if (done) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 1) <= 0) stream.pause();
        });
        stream.once('end', () => {
          if (done) return;
          done = true;
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
        stream.resume();
      },
      cancel() {
        done = true;
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
