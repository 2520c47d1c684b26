/**
 * httpFetch (src/net/http-fetch.ts) against real loopback HTTP servers: the shapes the SDKs
 * and the error table rely on (fetch's own), bodies, streaming, aborts, cut bodies, decoding and
 * the same-origin redirect rule that keeps a key on its host.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { FetchResponse } from '../../src/net/fetch-response.js';
import { httpFetch, sdkFetch } from '../../src/net/http-fetch.js';
import { useLoopbackServers } from '../fakes/loopback-servers.js';
import { startConnectProxy } from '../fakes/connect-proxy.js';
import { isNetworkFailure, redirectNotFollowed } from '../../src/providers/kit/error-table.js';

const { serve, servers } = useLoopbackServers();

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', () => resolve(text));
  });
}

describe('httpFetch', () => {
  it('sends method, headers and a JSON body, and returns status, headers and body like fetch', async () => {
    let seen: { method?: string; key?: string; type?: string; length?: string; body?: string } = {};
    const base = await serve(async (req, res) => {
      seen = { method: req.method, key: req.headers['x-api-key'] as string, type: req.headers['content-type'], length: req.headers['content-length'], body: await readBody(req) };
      res.writeHead(201, 'Made', [
        ['content-type', 'application/json'],
        ['set-cookie', 'a=1'],
        ['set-cookie', 'b=2'],
      ]);
      res.end('{"ok":true}');
    });
    const res = await httpFetch(`${base}/v1/messages`, { method: 'POST', headers: { 'x-api-key': 'k', 'content-type': 'application/json' }, body: '{"a":"é"}' });
    expect(seen).toEqual({ method: 'POST', key: 'k', type: 'application/json', length: String(Buffer.byteLength('{"a":"é"}')), body: '{"a":"é"}' });
    expect(res).toBeInstanceOf(FetchResponse);
    expect([res.status, res.statusText, res.ok, res.url]).toEqual([201, 'Made', true, `${base}/v1/messages`]);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await res.json()).toEqual({ ok: true });
  });

  it('streams the body as it arrives (an SSE reader sees the first event before the last is sent)', async () => {
    let sendRest: () => void = () => {};
    const base = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      sendRest = () => res.end('data: two\n\n');
    });
    const res = await httpFetch(`${base}/stream`);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: one\n\n');
    sendRest();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
    expect(rest).toBe('data: two\n\n');
  });

  it('a refused connection rejects as fetch does: TypeError "fetch failed" with the socket error as cause', async () => {
    const base = await serve((_req, res) => res.end());
    const server = servers.pop()!;
    await new Promise((resolve) => server.close(resolve));
    const err = (await httpFetch(`${base}/gone`).catch((e: unknown) => e)) as TypeError & { cause: NodeJS.ErrnoException };
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toBe('fetch failed');
    expect(err.cause.code).toBe('ECONNREFUSED');
    expect(isNetworkFailure(err)).toBe(true);
  });

  it('a body cut short errors the stream with TypeError "terminated", which the error table calls a broken connection', async () => {
    const base = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: partial\n\n', () => res.socket?.destroy());
    });
    const res = await httpFetch(`${base}/cut`);
    const err = (await res.text().catch((e: unknown) => e)) as TypeError;
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toBe('terminated');
    expect(isNetworkFailure(err)).toBe(true);
  });

  it('an abort before the answer rejects with the signal reason (AbortError), and the server sees the request go away', async () => {
    let closed!: () => void;
    let arrived!: () => void;
    const serverSawClose = new Promise<void>((resolve) => (closed = resolve));
    const serverGotRequest = new Promise<void>((resolve) => (arrived = resolve));
    const base = await serve((req) => {
      req.socket.once('close', closed);
      arrived();
    });
    const controller = new AbortController();
    const pending = httpFetch(`${base}/slow`, { signal: controller.signal }).catch((e: unknown) => e);
    // Abort once the request is at the server (not after a fixed delay: a loaded machine is slower).
    await serverGotRequest;
    controller.abort();
    const err = (await pending) as DOMException;
    expect(err.name).toBe('AbortError');
    await serverSawClose;
  });

  it('an abort while the body streams errors the body with AbortError; an already aborted signal never connects', async () => {
    let requests = 0;
    const base = await serve((_req, res) => {
      requests++;
      res.writeHead(200);
      res.write('x');
    });
    const controller = new AbortController();
    const res = await httpFetch(`${base}/body`, { signal: controller.signal });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    const err = (await reader.read().catch((e: unknown) => e)) as DOMException;
    expect(err.name).toBe('AbortError');
    const early = (await httpFetch(`${base}/never`, { signal: AbortSignal.abort() }).catch((e: unknown) => e)) as DOMException;
    expect(early.name).toBe('AbortError');
    expect(requests).toBe(1);
  });

  it('decodes gzip and br bodies', async () => {
    const text = 'compressed answer '.repeat(50);
    const base = await serve((req, res) => {
      const br = req.url === '/br';
      res.writeHead(200, { 'content-encoding': br ? 'br' : 'gzip' });
      res.end(br ? zlib.brotliCompressSync(text) : zlib.gzipSync(text));
    });
    expect(await (await httpFetch(`${base}/gzip`)).text()).toBe(text);
    expect(await (await httpFetch(`${base}/br`)).text()).toBe(text);
  });

  it('follows a same-origin redirect with method and body; a cross-origin one is handed back and the key never leaves its host', async () => {
    const otherHits: (string | undefined)[] = [];
    const other = await serve((req, res) => {
      otherHits.push(req.headers['x-api-key'] as string | undefined);
      res.end('elsewhere');
    });
    const base = await serve(async (req, res) => {
      if (req.url === '/old') {
        res.writeHead(307, { location: '/new' });
        res.end();
      } else if (req.url === '/away') {
        res.writeHead(302, { location: `${other}/steal` });
        res.end();
      } else res.end(`${req.method} ${await readBody(req)} ${req.headers['x-api-key']}`);
    });
    const moved = await httpFetch(`${base}/old`, { method: 'POST', headers: { 'x-api-key': 'secret' }, body: 'payload' });
    expect([moved.status, await moved.text(), moved.url]).toEqual([200, 'POST payload secret', `${base}/new`]);
    const away = await httpFetch(`${base}/away`, { method: 'POST', headers: { 'x-api-key': 'secret' }, body: 'payload' });
    expect(away.status).toBe(302);
    expect(away.headers.get('location')).toBe(`${other}/steal`);
    expect(otherHits).toEqual([]);
    // redirect: 'manual' (web_fetch follows redirects itself): every 3xx comes back as it is.
    const manual = await httpFetch(`${base}/old`, { redirect: 'manual' });
    expect([manual.status, manual.headers.get('location')]).toEqual([307, '/new']);
  });

  it('through a proxy: tunnels with CONNECT (NO_PROXY honoured); a proxy that drops the tunnel fails the request after one attempt', async () => {
    const proxy = await startConnectProxy();
    try {
      const base = await serve((_req, res) => res.end('through'));
      const target = base.replace('http://', '');
      const viaProxy = sdkFetch({ HTTP_PROXY: proxy.url });
      expect(await (await viaProxy(`${base}/a`)).text()).toBe('through');
      expect(proxy.tunnels).toEqual([target]);
      expect(await (await sdkFetch({ HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' })(`${base}/b`)).text()).toBe('through');
      expect(proxy.tunnels).toEqual([target]);

      // The target is gone: this proxy closes the tunnel without an answer. undici's ProxyAgent
      // retried such a CONNECT in a tight loop until the request timed out (nodejs/undici#3897).
      const server = servers.pop()!;
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      const err = (await viaProxy(`${base}/c`).catch((e: unknown) => e)) as TypeError;
      expect(err).toBeInstanceOf(TypeError);
      expect(err.message).toBe('fetch failed');
      expect(isNetworkFailure(err)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(proxy.tunnels.filter((t) => t === target).length).toBeLessThanOrEqual(3);
    } finally {
      await proxy.close();
    }
  });

  it("a body that goes silent fails as a network error after the idle limit (Node's fetch had one; the SDKs stop timing at the headers)", async () => {
    const base = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n'); // …and then nothing, with the connection open
    });
    const res = await httpFetch(`${base}/stall`, undefined, { bodyTimeoutMs: 150 });
    const reader = res.body!.getReader();
    await reader.read();
    const err = (await reader.read().catch((e: unknown) => e)) as TypeError & { cause: { code: string } };
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toBe('terminated');
    expect(err.cause.code).toBe('UND_ERR_BODY_TIMEOUT');
    expect(isNetworkFailure(err)).toBe(true);
  });

  it('a body the consumer is slow to read is not silent: the idle clock runs only while the consumer waits', async () => {
    const chunk = Buffer.alloc(64 << 10, 'x');
    const base = await serve(async (_req, res) => {
      res.writeHead(200);
      for (let i = 0; i < 40; i++) if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
      res.end();
    });
    const res = await httpFetch(`${base}/big`, undefined, { bodyTimeoutMs: 100 });
    await new Promise((resolve) => setTimeout(resolve, 400)); // the consumer is busy; the body backs up
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.length).toBe(40 * chunk.length);
  });

  it("no response headers within the limit, or no connection within its limit: fetch failed with undici's code", async () => {
    const base = await serve(() => undefined); // accepts, never answers
    const silent = (await httpFetch(`${base}/x`, undefined, { headersTimeoutMs: 150 }).catch((e: unknown) => e)) as TypeError & { cause: { code: string } };
    expect([silent.message, silent.cause.code]).toEqual(['fetch failed', 'UND_ERR_HEADERS_TIMEOUT']);
    expect(isNetworkFailure(silent)).toBe(true);
    // A socket that never connects (a host that drops SYNs), through an agent that hands one out.
    const blackhole = new (class extends http.Agent {
      override createConnection(): net.Socket {
        const socket = new net.Socket();
        // Still connecting, for ever: writes wait for a 'connect' that never comes.
        Object.defineProperty(socket, 'connecting', { value: true });
        return socket;
      }
    })();
    const stuck = (await httpFetch('http://192.0.2.1/', undefined, { connectTimeoutMs: 150, agentFor: async () => blackhole }).catch((e: unknown) => e)) as TypeError & {
      cause: { code: string };
    };
    expect([stuck.message, stuck.cause.code]).toEqual(['fetch failed', 'UND_ERR_CONNECT_TIMEOUT']);
  });

  it('the connect limit covers the TLS handshake and a proxy CONNECT that is never answered; a reused socket is not held to it', async () => {
    const silent = net.createServer(() => undefined); // accepts TCP, never says a word
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    try {
      const tlsStall = (await httpFetch(`https://127.0.0.1:${port}/`, undefined, { connectTimeoutMs: 150, headersTimeoutMs: 60_000 }).catch((e: unknown) => e)) as TypeError & {
        cause: { code: string };
      };
      expect([tlsStall.message, tlsStall.cause.code]).toEqual(['fetch failed', 'UND_ERR_CONNECT_TIMEOUT']);
      // A "proxy" that accepts and never answers CONNECT: the limit (and an abort) still end it.
      const viaSilentProxy = sdkFetch({ HTTP_PROXY: `http://127.0.0.1:${port}` }, { connectTimeoutMs: 150 });
      const stalled = (await viaSilentProxy('http://example.test/').catch((e: unknown) => e)) as TypeError & { cause: { code: string } };
      expect([stalled.message, stalled.cause.code]).toEqual(['fetch failed', 'UND_ERR_CONNECT_TIMEOUT']);
      const controller = new AbortController();
      const pending = sdkFetch({ HTTP_PROXY: `http://127.0.0.1:${port}` }, {})('http://example.test/', { signal: controller.signal }).catch((e: unknown) => e);
      setTimeout(() => controller.abort(), 50);
      expect(((await pending) as DOMException).name).toBe('AbortError');
    } finally {
      silent.close();
    }
    // Keep-alive: the second request reuses the socket and its answer takes longer than the limit.
    let calls = 0;
    const base = await serve((_req, res) => {
      calls++;
      setTimeout(() => res.end('late but fine'), calls === 1 ? 0 : 300);
    });
    await (await httpFetch(`${base}/1`, undefined, { connectTimeoutMs: 100 })).text();
    expect(await (await httpFetch(`${base}/2`, undefined, { connectTimeoutMs: 100 })).text()).toBe('late but fine');
  });

  it('hands over statuses Response alone refuses (205, 999), and redirect: error rejects', async () => {
    const base = await serve((req, res) => {
      if (req.url === '/moved') {
        res.writeHead(301, { location: '/there' });
        res.end();
        return;
      }
      res.writeHead(req.url === '/reset' ? 205 : 999, 'Request denied');
      res.end(req.url === '/reset' ? '' : 'no bots');
    });
    const reset = await httpFetch(`${base}/reset`);
    expect([reset.status, reset.body]).toEqual([205, null]);
    const odd = await httpFetch(`${base}/odd`);
    expect([odd.status, odd.ok, odd.statusText, await odd.text()]).toEqual([999, false, 'Request denied', 'no bots']);
    const err = (await httpFetch(`${base}/moved`, { redirect: 'error' }).catch((e: unknown) => e)) as TypeError;
    expect(err.message).toBe('fetch failed');
    const followed = await httpFetch(`${base}/moved`);
    expect(followed.redirected).toBe(true);
  });

  it('the redirect error says why it was not followed: another host, or the same host on https', () => {
    expect(redirectNotFollowed(301, new Headers({ location: 'https://gw.corp/v1/messages' }), 'http://gw.corp')).toBe(
      'redirected the request to https://gw.corp/v1/messages, which Keen does not follow (it changes the address to https); if that server is the right one, point the base URL at it',
    );
    expect(redirectNotFollowed(302, { location: 'https://evil.example/x' }, 'https://api.anthropic.com')).toContain('(the API key would go to another host)');
    expect(redirectNotFollowed(200, { location: 'https://x' })).toBeUndefined();
  });
});
