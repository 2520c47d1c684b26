/**
 * web_fetch against a hostile model and hostile servers: host spellings that dodge a domain
 * rule, redirects the rules would not allow, and pages built to hang or overflow the converter.
 * A loopback server, reached by any host name through the loopback CONNECT proxy (the proxy
 * tunnels every target to 127.0.0.1), so names like `evil.test` need no DNS.
 */
import http from 'node:http';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHeadlessGate, type PolicyInput } from '../../src/tools/permissions/index.js';
import { startConnectProxy, type ConnectProxy } from '../fakes/connect-proxy.js';
import { call } from './helpers.js';

let server: http.Server;
let port = 0;
let proxy: ConnectProxy;
let hits: string[] = [];
const savedEnv = { ...process.env };

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(`${req.headers.host}${req.url}`);
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    switch (req.url) {
      case '/page':
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`page of ${host}`);
        return;
      case '/to-www':
        res.writeHead(302, { location: `http://www.${host}:${port}/page` }).end();
        return;
      case '/to-bare':
        res.writeHead(307, { location: `http://${host.replace(/^www\./, '')}:${port}/page` }).end();
        return;
      case '/to-ftp':
        res.writeHead(301, { location: `ftp://${host}:${port}/page` }).end();
        return;
      case '/to-file':
        res.writeHead(302, { location: 'file:///etc/passwd' }).end();
        return;
      case '/deep':
        // 90,000 nested elements (under the 1 MB read): the HTML parser and the converter recurse per level.
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<p>before</p>${'<div>'.repeat(90_000)}deepest${'</div>'.repeat(90_000)}<p>after &amp; done</p>`);
        return;
      case '/headers': {
        const headers: Record<string, string> = { 'content-type': 'text/plain' };
        for (let i = 0; i < 1000; i++) headers[`x-filler-${i}`] = 'v'.repeat(100);
        res.writeHead(200, headers).end('ok');
        return;
      }
      default:
        res.writeHead(404, { 'content-type': 'text/plain' }).end('nope');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as net.AddressInfo).port;
  proxy = await startConnectProxy({ upstreamHost: '127.0.0.1' });
  for (const name of ['HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy']) delete process.env[name];
  process.env.HTTP_PROXY = proxy.url;
});

afterAll(async () => {
  process.env = savedEnv;
  await proxy.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const fetchWith = (url: string, input: PolicyInput) => {
  hits = [];
  return call('/', 'web_fetch', { url }, { permissions: createHeadlessGate({ cwd: '/', home: '/home/u', ...input }) });
};

describe('web_fetch: a domain rule holds whatever the URL spells', () => {
  it('a deny rule is not dodged by a trailing dot, upper case or a percent-encoded dot', async () => {
    for (const url of [`http://evil.test.:${port}/page`, `http://EVIL.Test.:${port}/page`, `http://evil.test%2e:${port}/page`, `http://api.evil.test.:${port}/page`]) {
      const r = await fetchWith(url, { yolo: true, user: { deny: ['web_fetch(domain:evil.test)'] } });
      expect(r.content, url).toContain('Permission denied: web_fetch is blocked by the rule "web_fetch(domain:evil.test)"');
      expect(hits, url).toEqual([]);
    }
  });

  it('a rule written with a trailing dot or in upper case still matches the host', async () => {
    const r = await fetchWith(`http://evil.test:${port}/page`, { yolo: true, user: { deny: ['web_fetch(domain:EVIL.test.)'] } });
    expect(r.content).toContain('Permission denied');
    expect(hits).toEqual([]);
  });

  it('an allow rule for a name allows the name with a trailing dot', async () => {
    const r = await fetchWith(`http://docs.test.:${port}/page`, { user: { allow: ['web_fetch(domain:docs.test)'] } });
    expect(r.is_error).toBeFalsy();
    expect(r.content).toContain('page of docs.test');
  });

  it('an IP rule is the address in any spelling, and never a suffix of another address', async () => {
    const deny = { yolo: true, user: { deny: ['web_fetch(domain:10.0.0.1)'] } };
    for (const url of ['http://167772161/', 'http://0xa.0.0.1/', 'http://10.0.0.1./']) {
      expect((await fetchWith(url, deny)).content, url).toContain('Permission denied');
    }
    // An allow rule for 0.0.1 is not an allow rule for 10.0.0.1 (headless: not allowed, so denied).
    expect((await fetchWith(`http://10.0.0.1:${port}/page`, { user: { allow: ['web_fetch(domain:0.0.1)'] } })).content).toContain('Permission denied: web_fetch needs approval');
    expect(hits).toEqual([]);
  });

  it('an IPv6 host gets a rule that parses, and the rule matches it', async () => {
    const r = await fetchWith(`http://[::1]:${port}/page`, {});
    expect(r.content).toContain('"web_fetch(domain:[::1])"');
    const denied = await fetchWith(`http://[0:0::1]:${port}/page`, { yolo: true, user: { deny: ['web_fetch(domain:[0::1])'] } });
    expect(denied.content).toContain('Permission denied: web_fetch is blocked by the rule');
  });
});

describe('web_fetch: credentials in a URL', () => {
  it('a URL with a user name and password is refused without repeating the password', async () => {
    const r = await fetchWith(`http://user:s3cret-pw@pages.test:${port}/page`, { yolo: true });
    expect(r.is_error).toBe(true);
    expect(r.content).toBe(`web_fetch: a URL with a user name or password is not fetched (http://pages.test:${port}).`);
    expect(hits).toEqual([]);
  });
});

describe('web_fetch: proxy credentials', () => {
  it('a refused tunnel is one line naming the proxy, never its user name or password', async () => {
    const refusing = await startConnectProxy({ answer: '407 Proxy Authentication Required' });
    const before = process.env.HTTP_PROXY;
    process.env.HTTP_PROXY = refusing.url.replace('http://', 'http://proxy-user:pr0xy-s3cret@');
    try {
      const r = await fetchWith(`http://pages.test:${port}/page`, { yolo: true });
      expect(r.is_error).toBe(true);
      expect(r.content).toContain(`proxy ${refusing.url} refused the tunnel to pages.test:${port}: 407`);
      expect(r.content).not.toMatch(/pr0xy-s3cret|proxy-user/);
      expect(refusing.authorizations).toEqual([`Basic ${Buffer.from('proxy-user:pr0xy-s3cret').toString('base64')}`]);
    } finally {
      process.env.HTTP_PROXY = before;
      await refusing.close();
    }
  });
});

describe('web_fetch: a redirect to the www twin is checked against the rules', () => {
  it('is reported, not followed, when a deny rule names the twin', async () => {
    const r = await fetchWith(`http://site.test:${port}/to-www`, { yolo: true, user: { deny: ['web_fetch(domain:www.site.test)'] } });
    expect(r.content).toContain(`redirects to another host: http://www.site.test:${port}/page`);
    expect(hits).toEqual([`site.test:${port}/to-www`]);
  });

  it('is reported when only the www host is allowed and it redirects to the bare one', async () => {
    const r = await fetchWith(`http://www.site.test:${port}/to-bare`, { user: { allow: ['web_fetch(domain:www.site.test)'] } });
    expect(r.content).toContain(`redirects to another host: http://site.test:${port}/page`);
    expect(hits).toEqual([`www.site.test:${port}/to-bare`]);
  });

  it('is followed when the rules allow the twin', async () => {
    const r = await fetchWith(`http://site.test:${port}/to-www`, { user: { allow: ['web_fetch(domain:site.test)'] } });
    expect(r.content).toContain('page of www.site.test');
  });
});

describe('web_fetch: a redirect to another scheme', () => {
  it('to ftp: on the same host, or to file:, ends with one line naming the scheme', async () => {
    const ftp = await fetchWith(`http://pages.test:${port}/to-ftp`, { yolo: true });
    expect(ftp.content).toBe(`web_fetch: http://pages.test:${port}/to-ftp redirects to ftp: (ftp://pages.test:${port}/page); only http and https URLs are fetched.`);
    const file = await fetchWith(`http://pages.test:${port}/to-file`, { yolo: true });
    expect(file.content).toBe(`web_fetch: http://pages.test:${port}/to-file redirects to file: (file:///etc/passwd); only http and https URLs are fetched.`);
    expect(hits).toEqual([`pages.test:${port}/to-file`]);
  });
});

describe('web_fetch: hostile pages end with one clear result', () => {
  it('a page nested 90,000 deep comes back as text, quickly, instead of overflowing the stack', async () => {
    const started = Date.now();
    const r = await fetchWith(`http://pages.test:${port}/deep`, { yolo: true });
    expect(r.is_error).toBeFalsy();
    expect(r.content).toContain('nests elements more than');
    expect(r.content).toContain('before');
    expect(r.content).toContain('deepest');
    expect(r.content).toContain('after & done');
    expect(r.content).not.toContain('<div>');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a response with a huge header block says why it failed', async () => {
    const r = await fetchWith(`http://pages.test:${port}/headers`, { yolo: true });
    expect(r.is_error).toBe(true);
    expect(r.content).toMatch(/^web_fetch: could not fetch http:\/\/pages\.test:\d+\/headers: .*header.*overflow/i);
  });
});
