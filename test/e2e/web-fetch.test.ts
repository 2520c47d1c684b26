/**
 * web_fetch end to end: `keen run` fetching from a loopback HTTP server (and through a loopback
 * proxy), driven by the loopback Anthropic fake.
 */
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolResults, useCliRig } from './cli-fixtures.js';
import { startConnectProxy } from '../fakes/connect-proxy.js';

const { rig, workspace } = useCliRig();

const PAGE = `<!doctype html><html><head><title>T</title><style>body{color:red}</style><script>alert(1)</script></head>
<body><h1>Release notes</h1><p>Version <strong>2.0</strong> is out. See <a href="/docs">the docs</a>.</p>
<ul><li>fast</li><li>small</li></ul></body></html>`;

let server: http.Server;
let base = '';
let hits: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    switch (req.url) {
      case '/page':
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
        return;
      case '/hop1':
        res.writeHead(302, { location: '/hop2' }).end();
        return;
      case '/hop2':
        res.writeHead(301, { location: `${base}/page` }).end();
        return;
      case '/elsewhere':
        res.writeHead(302, { location: `http://localhost:${(server.address() as net.AddressInfo).port}/page` }).end();
        return;
      case '/logo.png':
        res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(64, 1));
        return;
      case '/big': {
        // 3 MB of text, written in chunks: web_fetch must stop reading at 1 MB.
        res.writeHead(200, { 'content-type': 'text/plain' });
        const line = `${'x'.repeat(99)}\n`;
        let sent = 0;
        const pump = () => {
          while (sent < 30_000) {
            sent++;
            if (!res.write(line)) return void res.once('drain', pump);
          }
          res.end('END-OF-BIG\n');
        };
        pump();
        return;
      }
      default:
        res.writeHead(404, { 'content-type': 'text/plain' }).end('nope');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const ALLOW = { permissions: { allow: ['web_fetch(domain:127.0.0.1)'] } };

async function fetchVia(url: string, config: unknown = ALLOW, env: Record<string, string> = {}) {
  // The user's own config: a project's allow rules count only in a trusted folder.
  const ws = workspace();
  fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify(config));
  const from = rig.fake.requests.length;
  rig.fake.enqueue({ steps: [{ toolCall: { name: 'web_fetch', args: { url } } }] }, { steps: [{ text: 'ok' }] });
  const r = await rig.keen(ws, ['run', 'fetch it'], { env });
  expect(r.code).toBe(0);
  return toolResults(rig.fake.requests[from + 1])[0];
}

describe('web_fetch', () => {
  it('converts HTML to Markdown without scripts and styles', async () => {
    const result = await fetchVia(`${base}/page`);
    expect(result.isError).toBe(false);
    expect(result.text).toContain(`URL: ${base}/page`);
    expect(result.text).toContain('# Release notes');
    expect(result.text).toContain('Version **2.0** is out. See [the docs](/docs).');
    expect(result.text).toMatch(/^-\s+fast$/m);
    expect(result.text).not.toContain('alert(1)');
    expect(result.text).not.toContain('color:red');
  });

  it('follows redirects on the same host and reports one to another host instead of following it', async () => {
    const followed = await fetchVia(`${base}/hop1`);
    expect(followed.text).toContain(`URL: ${base}/page (redirected from ${base}/hop1)`);
    expect(followed.text).toContain('# Release notes');

    hits = [];
    const reported = await fetchVia(`${base}/elsewhere`);
    expect(reported.isError).toBe(false);
    expect(reported.text).toContain('redirects to another host: http://localhost:');
    expect(hits).toEqual(['/elsewhere']);
  });

  it('reads at most 1 MB and says the page was cut', async () => {
    const result = await fetchVia(`${base}/big`);
    expect(result.isError).toBe(false);
    expect(result.text).toContain('only the first 1000000 bytes were read');
    expect(result.text).not.toContain('END-OF-BIG');
    expect(result.text.length).toBeLessThan(40_000);
  });

  it('refuses binary content with a clear result', async () => {
    const result = await fetchVia(`${base}/logo.png`);
    expect(result.isError).toBe(true);
    expect(result.text).toBe(`web_fetch: ${base}/logo.png is image/png, not text; web_fetch only returns text and HTML pages.`);
  });

  it('is denied headless without a rule for the domain, naming the rule to add', async () => {
    hits = [];
    const denied = await fetchVia(`${base}/page`, { permissions: { allow: ['web_fetch(domain:example.com)'] } });
    expect(denied.isError).toBe(true);
    expect(denied.text).toContain('"web_fetch(domain:127.0.0.1)"');
    expect(hits).toEqual([]);
  });

  it('goes through HTTP_PROXY unless NO_PROXY names the host', async () => {
    const proxy = await startConnectProxy();
    const { tunnels, url: proxyUrl } = proxy;
    try {
      const viaProxy = await fetchVia(`${base}/page`, ALLOW, { HTTP_PROXY: proxyUrl, http_proxy: proxyUrl, NO_PROXY: '', no_proxy: '' });
      expect(viaProxy.text).toContain('# Release notes');
      // The provider's own requests go through the proxy too (src/net/proxy.ts): count the page's.
      const page = base.replace('http://', '');
      expect(tunnels.filter((t) => t === page)).toHaveLength(1);

      const direct = await fetchVia(`${base}/page`, ALLOW, { HTTP_PROXY: proxyUrl, http_proxy: proxyUrl, NO_PROXY: '127.0.0.1', no_proxy: '127.0.0.1' });
      expect(direct.text).toContain('# Release notes');
      expect(tunnels.filter((t) => t === page)).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });
});
