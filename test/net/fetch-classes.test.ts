/**
 * Keen's own `Headers` and `Response` (src/net/fetch-headers.ts, fetch-response.ts), which the
 * bundle uses instead of Node's (undici: ~20 ms to load). Checked against Node's own classes: the
 * same operations give the same answers, and a request httpFetch sends reaches a real server
 * exactly as Node's fetch sends it.
 */
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { FetchHeaders } from '../../src/net/fetch-headers.js';
import { FetchResponse, toWebResponse } from '../../src/net/fetch-response.js';
import { httpFetch, sdkFetch } from '../../src/net/http-fetch.js';
import { useLoopbackServers } from '../fakes/loopback-servers.js';

type Op = (h: Headers) => unknown;

function outcome(run: () => unknown): unknown {
  try {
    return { value: run() };
  } catch (err) {
    return { threw: (err as Error).constructor.name };
  }
}

/** Each op on a Node Headers and on a FetchHeaders built from the same init: answers and final state match. */
function sameAsNode(init: HeadersInit | undefined, ops: Op[]): void {
  const node = outcome(() => new Headers(init));
  const ours = outcome(() => new FetchHeaders(init as never));
  expect('threw' in (ours as object), JSON.stringify(init)).toBe('threw' in (node as object));
  if ('threw' in (node as object)) return;
  const a = new Headers(init);
  const b = new FetchHeaders(init as never) as unknown as Headers;
  for (const op of ops) expect(outcome(() => op(b))).toEqual(outcome(() => op(a)));
  expect([...b]).toEqual([...a]);
  const seen: unknown[] = [];
  b.forEach((value, name, parent) => {
    seen.push([value, name, parent === b]);
  });
  const seenNode: unknown[] = [];
  a.forEach((value, name, parent) => {
    seenNode.push([value, name, parent === a]);
  });
  expect(seen).toEqual(seenNode);
  expect([[...b.keys()], [...b.values()], [...b.entries()]]).toEqual([[...a.keys()], [...a.values()], [...a.entries()]]);
}

describe('FetchHeaders (as Node’s Headers)', () => {
  it('case-insensitive names, repeated values joined, sorted iteration, set-cookie kept apart', () => {
    sameAsNode({ 'X-B': '2', 'content-type': 'application/json' }, [
      (h) => h.append('x-b', '3'),
      (h) => h.get('X-b'),
      (h) => h.append('Set-Cookie', 'a=1'),
      (h) => h.append('set-cookie', 'b=2'),
      (h) => h.get('set-cookie'),
      (h) => h.getSetCookie(),
      (h) => h.has('CONTENT-TYPE'),
      (h) => h.get('missing'),
      (h) => h.set('x-b', 'only'),
      (h) => h.delete('Content-Type'),
      (h) => h.has('content-type'),
    ]);
  });

  it('trims HTTP whitespace from values and refuses what Node refuses', () => {
    sameAsNode([['a', '  padded \t']], [(h) => h.get('a'), (h) => h.append('b', '\r\n x'), (h) => h.get('b')]);
    sameAsNode(undefined, [
      (h) => h.append('bad name', 'x'),
      (h) => h.append('a', 'x\ny'),
      (h) => h.set('a', 'nul\0'),
      (h) => h.append('a', 'wide \u0100'),
      (h) => h.append('', 'x'),
      (h) => h.get('é'),
    ]);
    sameAsNode(undefined, [(h) => h.append('ok', 'latin1 é ÿ'), (h) => h.get('ok')]);
  });

  it('takes the inits Node takes: a record, pairs, Node’s Headers, its own; refuses a bad pair', () => {
    sameAsNode(
      [
        ['a', '1'],
        ['A', '2'],
      ],
      [(h) => h.get('a')],
    );
    sameAsNode(new Headers({ x: '1', y: '2' }), [(h) => h.get('y')]);
    sameAsNode(new FetchHeaders({ x: '1' }) as unknown as Headers, [(h) => h.get('x')]);
    sameAsNode([['a', '1', '2']] as unknown as HeadersInit, []);
    expect(new Headers(new FetchHeaders({ k: 'v' }) as unknown as Headers).get('k')).toBe('v');
    expect(Object.prototype.toString.call(new FetchHeaders())).toBe('[object Headers]');
  });
});

const { serve } = useLoopbackServers();

interface Seen {
  method?: string;
  type?: string;
  length?: string;
  custom?: string;
  body: string;
}

function recorder(): { url: Promise<string>; last: () => Seen } {
  let seen: Seen = { body: '' };
  const url = serve((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen = { method: req.method, type: req.headers['content-type'], length: req.headers['content-length'], custom: req.headers['x-custom'] as string | undefined, body };
      res.end('ok');
    });
  });
  return { url, last: () => seen };
}

describe('httpFetch sends what Node’s fetch sends', () => {
  const inits: [string, RequestInit][] = [
    ['a string body (text/plain by default)', { method: 'POST', body: '{"a":"é"}' }],
    ['a string body with its own type', { method: 'post', headers: { 'Content-Type': 'application/json' }, body: '{}' }],
    ['URLSearchParams', { method: 'PUT', body: new URLSearchParams({ q: 'a b', r: 'é' }) }],
    ['bytes', { method: 'POST', body: new TextEncoder().encode('bytes ✓') }],
    ['a DataView of part of a buffer', { method: 'POST', body: new DataView(new TextEncoder().encode('xxinsidexx').buffer, 2, 6) }],
    [
      'an ArrayBuffer and pair headers',
      {
        method: 'PATCH',
        headers: [
          ['x-custom', 'one'],
          ['X-Custom', 'two'],
        ],
        body: new TextEncoder().encode('ab').buffer,
      },
    ],
    ['Node’s Headers', { method: 'DELETE', headers: new Headers({ 'x-custom': 'h' }) }],
    ['a method of its own', { method: 'PROPFIND', headers: { 'x-custom': 'p' } }],
    ['a Blob (through Node’s Request)', { method: 'POST', body: new Blob(['blob'], { type: 'text/x-blob' }) }],
  ];

  it.each(inits)('%s', async (_what, init) => {
    const rec = recorder();
    const url = await rec.url;
    await (await fetch(`${url}/x`, init)).text();
    const viaNode = rec.last();
    await (await httpFetch(`${url}/x`, init)).text();
    expect(rec.last()).toEqual(viaNode);
  });

  it('refuses what Node’s fetch refuses, before connecting', async () => {
    const rec = recorder();
    const url = await rec.url;
    for (const init of [
      { method: 'GET', body: 'x' },
      { method: 'HEAD', body: 'x' },
      { method: 'CONNECT' },
      { method: 'connect' },
      { method: 'a b' },
      { headers: { 'bad name': 'x' } },
    ] as RequestInit[]) {
      const node = await fetch(`${url}/x`, init).then(
        () => undefined,
        (err: Error) => err,
      );
      expect(node).toBeInstanceOf(TypeError);
      const ours = await httpFetch(`${url}/x`, init).then(
        () => undefined,
        (err: Error) => err,
      );
      expect(ours).toBeInstanceOf(TypeError);
      // Node's messages for a bad method (an SDK error would show them).
      if (init.method) expect(ours?.message).toBe(node?.message);
    }
    const withCredentials = url.replace('http://', 'http://user:pass@');
    await expect(httpFetch(withCredentials)).rejects.toThrow(/includes credentials/);
    await expect(httpFetch('not a url')).rejects.toThrow(TypeError);
    expect(rec.last().method).toBeUndefined();
  });
});

describe('FetchResponse (as Node’s Response)', () => {
  it('reads once: text, json, bytes, blob; a second read and a clone after reading refuse', async () => {
    const base = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end('\uFEFF{"é":1}');
    });
    const res = await httpFetch(base);
    expect(res).toBeInstanceOf(FetchResponse);
    expect(res.bodyUsed).toBe(false);
    const copy = res.clone();
    expect(await res.json()).toEqual({ é: 1 });
    expect(res.bodyUsed).toBe(true);
    await expect(res.text()).rejects.toThrow(TypeError);
    expect(() => res.clone()).toThrow(TypeError);
    const blob = await copy.blob();
    expect([blob.type, await blob.text()]).toEqual(['application/json; charset=utf-8', '{"é":1}']);
    const again = await httpFetch(base);
    const bytes = new Uint8Array(await again.arrayBuffer());
    expect(Buffer.from(bytes).toString('utf8')).toBe('\uFEFF{"é":1}');
  });

  it('bytes are a copy of their own (not a view into zlib’s or the pool’s buffer); the URL has no fragment', async () => {
    const base = await serve((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(zlib.gzipSync('hello gzip'));
    });
    const res = await httpFetch(`${base}/page#section`);
    const bytes = await res.bytes();
    expect([bytes.byteOffset, bytes.byteLength, bytes.buffer.byteLength]).toEqual([0, 10, 10]);
    expect(Buffer.from(bytes.buffer).toString()).toBe('hello gzip');
    expect(res.url).toBe(`${base}/page`);
    expect((await fetch(`${base}/page#section`)).url).toBe(res.url);
  });

  it('a reader that takes the body makes it used; no body for HEAD and 204', async () => {
    const base = await serve((req, res) => {
      res.writeHead(req.url === '/empty' ? 204 : 200);
      res.end(req.url === '/empty' ? undefined : 'streamed');
    });
    const res = await httpFetch(base);
    const reader = res.body!.getReader();
    expect(res.bodyUsed).toBe(true);
    await reader.cancel();
    expect((await httpFetch(base, { method: 'HEAD' })).body).toBeNull();
    const empty = await httpFetch(`${base}/empty`);
    expect([empty.status, empty.body, await empty.text()]).toEqual([204, null, '']);
  });

  it('toWebResponse hands code Keen does not bundle a real Response: status (999 too), headers, url, body, formData', async () => {
    const base = await serve((req, res) => {
      if (req.url === '/odd') {
        res.writeHead(999, 'Request denied', { 'x-why': 'bots' });
        res.end('no');
        return;
      }
      res.writeHead(302, { location: 'https://elsewhere.example/', 'content-type': 'application/x-www-form-urlencoded' });
      res.end('a=1&b=%C3%A9');
    });
    const odd = toWebResponse(await httpFetch(`${base}/odd`));
    expect(odd).toBeInstanceOf(Response);
    expect([odd.status, odd.ok, odd.statusText, odd.headers.get('x-why'), odd.url, await odd.text()]).toEqual([999, false, 'Request denied', 'bots', `${base}/odd`, 'no']);
    const web = await sdkFetch({}, {}, { web: true })(base);
    expect(web).toBeInstanceOf(Response);
    expect([web.status, web.headers.get('location')]).toEqual([302, 'https://elsewhere.example/']);
    expect(Object.fromEntries(await web.formData())).toEqual({ a: '1', b: 'é' });
    expect(await (await httpFetch(base)).formData().then((f) => f.get('b'))).toBe('é');
  });
});
