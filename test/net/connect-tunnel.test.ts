/**
 * Keen's CONNECT tunnel (src/net/connect-tunnel.ts) through the loopback proxy fake, as the
 * providers reach it (sdkFetch / httpFetch): cancelling a CONNECT that is never answered, the
 * TLS identity of an https target (host name or IP literal), refusals, proxy credentials, and
 * an https:// proxy. The fake proxy routes every tunnel to 127.0.0.1, so targets may be named
 * model.test or 127.0.0.9 — the names the client checks the test certificate against.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConnectTunnelAgent, type ConnectTunnelOptions } from '../../src/net/connect-tunnel.js';
import { httpFetch, sdkFetch } from '../../src/net/http-fetch.js';
import { TUNNEL_SIGNAL } from '../../src/net/tunnel-signal.js';
import { isNetworkFailure } from '../../src/providers/kit/error-table.js';
import { type ConnectProxy, type ConnectProxyOptions, startConnectProxy } from '../fakes/connect-proxy.js';
import { PROXY, TARGET } from '../fakes/test-certs.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function proxy(options: ConnectProxyOptions = {}): Promise<ConnectProxy> {
  const started = await startConnectProxy({ upstreamHost: '127.0.0.1', ...options });
  cleanups.push(() => started.close());
  return started;
}

async function listen<T extends net.Server>(server: T): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    if ('closeAllConnections' in server) (server as unknown as http.Server).closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return (server.address() as AddressInfo).port;
}

/** An HTTPS server with the test certificate that answers with the SNI name it was asked for. */
async function httpsTarget(): Promise<number> {
  return listen(
    https.createServer(TARGET, (req, res) => {
      res.end(JSON.stringify({ sni: (req.socket as TLSSocket).servername || null }));
    }),
  );
}

function agent(proxyUrl: string, options: ConnectTunnelOptions): ConnectTunnelAgent {
  const made = new ConnectTunnelAgent(proxyUrl, options);
  cleanups.push(() => made.destroy());
  return made;
}

type Failure = TypeError & { cause: Error & { code?: string } };
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e: unknown) => e as Failure,
  );

describe('the CONNECT tunnel', () => {
  it('an aborted request, and one past its connect limit, close their CONNECT to a proxy that never answers', async () => {
    const silent = await proxy({ answer: 'never' });
    const env = { HTTPS_PROXY: silent.url };
    const controller = new AbortController();
    const pending = failure(sdkFetch(env, {})('https://model.test/v1/messages', { signal: controller.signal }));
    await vi.waitFor(() => expect(silent.open).toBe(1), { timeout: 10_000 });
    controller.abort();
    expect(((await pending) as unknown as DOMException).name).toBe('AbortError');
    // The proxy sees its client go: the tunnel is not left waiting for the proxy to give up.
    await vi.waitFor(() => expect(silent.open).toBe(0), { timeout: 5000 });

    const timedOut = await failure(sdkFetch(env, { connectTimeoutMs: 100 })('https://model.test/v1/messages'));
    expect([timedOut.message, timedOut.cause.code]).toEqual(['fetch failed', 'UND_ERR_CONNECT_TIMEOUT']);
    expect(silent.tunnels).toHaveLength(2);
    await vi.waitFor(() => expect(silent.open).toBe(0), { timeout: 5000 });
  });

  it('an abort, or the connect limit, during the TLS handshake inside the tunnel closes the tunnel too', async () => {
    const connections = new Set<net.Socket>();
    const port = await listen(
      net.createServer((socket) => {
        connections.add(socket); // accepts TCP, never says a word of TLS
        socket.resume(); // reads (the ClientHello), so it sees the client leave
        socket.once('close', () => connections.delete(socket));
      }),
    );
    cleanups.push(() => {
      for (const socket of connections) socket.destroy();
    });
    const through = await proxy();
    const controller = new AbortController();
    const pending = failure(sdkFetch({ HTTPS_PROXY: through.url }, {})(`https://127.0.0.9:${port}/`, { signal: controller.signal }));
    await vi.waitFor(() => expect(connections.size).toBe(1), { timeout: 10_000 });
    controller.abort();
    expect(((await pending) as unknown as DOMException).name).toBe('AbortError');
    await vi.waitFor(() => expect([through.open, connections.size]).toEqual([0, 0]), { timeout: 5000 });

    // The connect limit runs until the handshake inside the tunnel is done.
    const stalled = await failure(sdkFetch({ HTTPS_PROXY: through.url }, { connectTimeoutMs: 150 })(`https://model.test:${port}/`));
    expect([stalled.message, stalled.cause.code]).toEqual(['fetch failed', 'UND_ERR_CONNECT_TIMEOUT']);
    expect(through.tunnels).toEqual([`127.0.0.9:${port}`, `model.test:${port}`]);
    await vi.waitFor(() => expect([through.open, connections.size]).toEqual([0, 0]), { timeout: 5000 });
  });

  it('the agent’s own connect limit (for clients that cannot time the CONNECT: Bedrock) covers the CONNECT and the handshake', async () => {
    const connections = new Set<net.Socket>();
    const port = await listen(
      net.createServer((socket) => {
        connections.add(socket);
        socket.resume();
        socket.once('close', () => connections.delete(socket));
      }),
    );
    cleanups.push(() => {
      for (const socket of connections) socket.destroy();
    });
    const get = (agent: ConnectTunnelAgent, url: string) =>
      new Promise<NodeJS.ErrnoException>((resolve, reject) => {
        https.get(url, { agent }, () => reject(new Error('answered'))).once('error', resolve);
      });
    const never = await proxy({ answer: 'never' });
    const silentProxy = await get(new ConnectTunnelAgent(never.url, { target: 'https:', connectTimeoutMs: 150 }), 'https://model.test/');
    expect([silentProxy.code, silentProxy.message]).toEqual(['UND_ERR_CONNECT_TIMEOUT', `the tunnel to model.test:443 through proxy ${never.url} did not connect within 150 ms`]);
    await vi.waitFor(() => expect(never.open).toBe(0), { timeout: 5000 });

    const through = await proxy();
    const stalled = await get(new ConnectTunnelAgent(through.url, { target: 'https:', connectTimeoutMs: 150 }), `https://model.test:${port}/`);
    expect([stalled.code, stalled.message]).toEqual(['UND_ERR_CONNECT_TIMEOUT', `the tunnel to model.test:${port} through proxy ${through.url} did not connect within 150 ms`]);
    await vi.waitFor(() => expect([through.open, connections.size]).toEqual([0, 0]), { timeout: 5000 });
  });

  it('checks an https target against its host name (SNI) or its IP literal (no SNI); a mismatch or an untrusted certificate fails closed', async () => {
    const port = await httpsTarget();
    const through = await proxy();
    const trusting = agent(through.url, { target: 'https:', ca: TARGET.cert });
    const via = (url: string, a: ConnectTunnelAgent = trusting) => httpFetch(url, undefined, { agentFor: async () => a });

    expect(await (await via(`https://model.test:${port}/`)).json()).toEqual({ sni: 'model.test' });
    // The certificate names 127.0.0.9: checked against the IP the request was for, with no SNI.
    expect(await (await via(`https://127.0.0.9:${port}/`)).json()).toEqual({ sni: null });
    // Keep-alive: the second request to an origin rides the same tunnel.
    await (await via(`https://model.test:${port}/again`)).text();
    expect(through.tunnels).toEqual([`model.test:${port}`, `127.0.0.9:${port}`]);

    for (const wrong of [`https://127.0.0.8:${port}/`, `https://other.test:${port}/`]) {
      const err = await failure(via(wrong));
      expect([err.message, err.cause.code]).toEqual(['fetch failed', 'ERR_TLS_CERT_ALTNAME_INVALID']);
    }
    const untrusted = await failure(via(`https://model.test:${port}/`, agent(through.url, { target: 'https:' })));
    expect(untrusted.cause.code).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY/);
  });

  it('a refused CONNECT fails that request once with one line naming the proxy and the status, never the credentials', async () => {
    const refusing = await proxy({ answer: '407 Proxy Authentication Required' });
    const withUser = refusing.url.replace('http://', 'http://keen%40corp:s3cr%3At@');
    const err = await failure(sdkFetch({ HTTPS_PROXY: withUser })('https://api.anthropic.com/v1/messages', { method: 'POST', body: '{}' }));
    expect(err.message).toBe('fetch failed');
    expect(err.cause.message).toBe(`proxy ${refusing.url} refused the tunnel to api.anthropic.com:443: 407 Proxy Authentication Required`);
    expect(isNetworkFailure(err)).toBe(true);
    expect(refusing.tunnels).toEqual(['api.anthropic.com:443']);
    // The userinfo, percent-decoded, went to the proxy as Basic credentials.
    expect(refusing.authorizations).toEqual([`Basic ${Buffer.from('keen@corp:s3cr:t').toString('base64')}`]);
    expect(JSON.stringify({ message: err.cause.message, stack: err.cause.stack })).not.toMatch(/s3cr|keen%40corp|keen@corp/);
  });

  it('a proxy that drops the connection instead of answering fails the request once, saying so', async () => {
    const dropping = await proxy({ answer: 'drop' });
    const err = await failure(sdkFetch({ HTTPS_PROXY: dropping.url })('https://api.openai.com/v1/responses'));
    expect(err.cause.message).toBe(`proxy ${dropping.url} closed the connection without answering the CONNECT to api.openai.com:443`);
    expect(isNetworkFailure(err)).toBe(true);
    // A second request is a second CONNECT: nothing was retried behind the first one's back.
    await failure(sdkFetch({ HTTPS_PROXY: dropping.url })('https://api.openai.com/v1/responses'));
    expect(dropping.tunnels).toEqual(['api.openai.com:443', 'api.openai.com:443']);
  });

  it('an unreachable or unsupported proxy fails with one line naming it; host:port alone means http://', async () => {
    const closed = net.createServer();
    const deadPort = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await failure(sdkFetch({ HTTP_PROXY: `http://user:pw@127.0.0.1:${deadPort}` })('http://model.test/'));
    expect(unreachable.cause.message).toMatch(new RegExp(`^the tunnel to model.test:80 through proxy http://127.0.0.1:${deadPort} failed: connect ECONNREFUSED`));
    expect(unreachable.cause.message).not.toContain('pw');
    expect(isNetworkFailure(unreachable)).toBe(true);

    const socks = await failure(sdkFetch({ HTTP_PROXY: 'socks5://127.0.0.1:1080' })('http://model.test/'));
    expect(socks.cause.message).toBe('proxy socks5://127.0.0.1:1080 is not supported: only http:// and https:// proxies can tunnel');
    const garbled = await failure(sdkFetch({ HTTP_PROXY: `http://me:p%ZZ@127.0.0.1:${deadPort}` })('http://model.test/'));
    expect(garbled.cause.message).toBe(`the user name or password in the setting for proxy http://127.0.0.1:${deadPort} is not valid percent-encoding`);

    // A password with an unencoded "/" parses as host "user", port "1234": the error must not show them.
    const unencoded = await failure(sdkFetch({ HTTP_PROXY: 'http://user:1234/s3cr3t@proxy.invalid:8080' })('http://model.test/'));
    expect(unencoded.cause.message).toBe('the proxy setting is not a valid URL: percent-encode the characters of its user name and password (e.g. "/" as %2F)');
    const email = await failure(sdkFetch({ HTTP_PROXY: 'http://me@corp.com:5678/pw@proxy.invalid:8080' })('http://model.test/'));
    expect(email.cause.message).toBe(unencoded.cause.message);

    const target = await listen(http.createServer((_req, res) => res.end('plain')));
    const through = await proxy();
    const bare = through.url.replace('http://', '');
    expect(await (await sdkFetch({ HTTP_PROXY: bare })(`http://model.test:${target}/`)).text()).toBe('plain');
    expect(through.tunnels).toEqual([`model.test:${target}`]);
  });

  it('a connection asked for with a signal already aborted fails at once, without a CONNECT or an uncaught error', async () => {
    const never = await proxy({ answer: 'never' });
    const agent = new ConnectTunnelAgent(never.url, { target: 'https:' });
    const aborted = AbortSignal.abort();
    const uncaught = vi.fn();
    process.on('uncaughtException', uncaught);
    cleanups.push(() => process.off('uncaughtException', uncaught));
    const err = await new Promise<Error | null>((resolve) => agent.createConnection({ host: 'model.test', port: 443, [TUNNEL_SIGNAL]: aborted } as never, (e) => resolve(e)));
    expect(err?.message).toMatch(/^the tunnel to model.test:443 through proxy http:\/\/127\.0\.0\.1:\d+ was cancelled$/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(uncaught).not.toHaveBeenCalled();
    expect(never.tunnels).toEqual([]);
  });

  it('an https:// proxy: TLS to the proxy (checked like any server), then the tunnel; an untrusted proxy certificate fails closed', async () => {
    const port = await httpsTarget();
    const plainPort = await listen(http.createServer((_req, res) => res.end('plain through TLS')));
    const tlsProxy = await proxy({ tls: PROXY });
    expect(tlsProxy.url).toMatch(/^https:\/\/127\.0\.0\.1:/);
    const ca = [TARGET.cert, PROXY.cert];
    const secure = agent(tlsProxy.url, { target: 'https:', ca });
    const plain = agent(tlsProxy.url, { target: 'http:', ca });
    expect(await (await httpFetch(`https://model.test:${port}/`, undefined, { agentFor: async () => secure })).json()).toEqual({ sni: 'model.test' });
    expect(await (await httpFetch(`http://model.test:${plainPort}/`, undefined, { agentFor: async () => plain })).text()).toBe('plain through TLS');
    expect(tlsProxy.tunnels).toEqual([`model.test:${port}`, `model.test:${plainPort}`]);

    const untrusted = agent(tlsProxy.url, { target: 'https:', ca: TARGET.cert });
    const err = await failure(httpFetch(`https://model.test:${port}/`, undefined, { agentFor: async () => untrusted }));
    expect(err.cause.message).toMatch(new RegExp(`through proxy ${tlsProxy.url} failed: .*self.signed`, 'i'));
    expect(tlsProxy.tunnels).toHaveLength(2);
  });
});
