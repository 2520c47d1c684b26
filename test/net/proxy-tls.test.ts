/**
 * TLS through a proxy (the CONNECT tunnel of src/net): an untrusted certificate fails
 * closed, a name or an IP literal is checked against the certificate, and an https:// proxy's own
 * certificate is verified too. Real servers and the CONNECT proxy fake on loopback.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkFetch } from '../../src/net/http-fetch.js';
import { startConnectProxy } from '../fakes/connect-proxy.js';
import { PROXY, TARGET } from '../fakes/test-certs.js';

let server: https.Server;
let port: number;

beforeAll(async () => {
  server = https.createServer(TARGET, (_req, res) => res.end('secret-free'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => server.close());

const failure = (p: Promise<Response>) => p.then(() => undefined).catch((e: { cause?: { code?: string; message?: string } }) => e.cause?.code ?? e.cause?.message ?? 'failed');

describe('TLS through a proxy', () => {
  it('without a proxy, an https URL is spoken TLS to and verified (node:https loads at the first one)', async () => {
    const f = sdkFetch({});
    expect(await failure(f(`https://127.0.0.1:${port}/`))).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|DEPTH_ZERO/);
  });

  it('an untrusted certificate fails closed, by name and by IP literal; nothing is read', async () => {
    const proxy = await startConnectProxy({ upstreamHost: '127.0.0.1' });
    try {
      const f = sdkFetch({ HTTPS_PROXY: proxy.url });
      expect(await failure(f(`https://model.test:${port}/`))).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|DEPTH_ZERO/);
      expect(await failure(f(`https://127.0.0.9:${port}/`))).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|DEPTH_ZERO/);
      expect(proxy.tunnels).toEqual([`model.test:${port}`, `127.0.0.9:${port}`]);
    } finally {
      await proxy.close();
    }
  });

  it('an https:// proxy whose certificate does not verify is refused before any CONNECT', async () => {
    const proxy = await startConnectProxy({ upstreamHost: '127.0.0.1', tls: PROXY });
    try {
      const f = sdkFetch({ HTTPS_PROXY: proxy.url });
      expect(await failure(f(`https://model.test:${port}/`))).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|DEPTH_ZERO/);
      expect(proxy.tunnels).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});
