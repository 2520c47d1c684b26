/** The pure decisions of the MCP layer: which servers start, names, schemas, results, rules. */
import { describe, expect, it } from 'vitest';
import os from 'node:os';
import { createHeadlessGate, createSessionGate, parseRule } from '../../../src/tools/permissions/index.js';
import { expandVars } from '../../../src/tools/mcp/expand.js';
import { mcpToolName } from '../../../src/tools/mcp/names.js';
import { MCP_IMAGE_MAX_BYTES, mapCallResult } from '../../../src/tools/mcp/result-map.js';
import { adaptInputSchema } from '../../../src/tools/mcp/schema-adapt.js';
import { adaptMcpTool } from '../../../src/tools/mcp/tool-adapter.js';
import { resolveServers, type ServerSource } from '../../../src/tools/mcp/servers.js';
import { configSchema } from '../../../src/config/schema.js';

const opts = (projectTrusted: boolean, env: NodeJS.ProcessEnv = {}) => ({ projectTrusted, env, cwd: '/home/me/app' });

describe('resolveServers', () => {
  const user: ServerSource = { origin: 'user', file: '/h/config.json', servers: { mine: { command: 'node', args: ['a.js'] } } };
  const project: ServerSource = { origin: 'project', file: '/home/me/app/.mcp.json', servers: { shared: { type: 'http', url: 'https://x.example/mcp' } } };

  it('starts user servers always and project servers only when trusted, naming the skipped ones', () => {
    const untrusted = resolveServers([user, project], opts(false));
    expect(untrusted.servers.map((s) => s.name)).toEqual(['mine']);
    expect(untrusted.skipped).toEqual(['shared']);
    const trusted = resolveServers([user, project], opts(true));
    expect(trusted.servers.map((s) => s.name)).toEqual(['mine', 'shared']);
    expect(trusted.skipped).toEqual([]);
  });

  it('a later source replaces an entry of the same name; disabled: true anywhere turns it off', () => {
    const flag: ServerSource = { origin: 'flag', file: '/tmp/x.json', servers: { mine: { command: 'other' } } };
    expect(resolveServers([user, flag], opts(false)).servers).toMatchObject([{ name: 'mine', command: 'other', file: '/tmp/x.json' }]);
    const off: ServerSource = { origin: 'flag', file: '/tmp/off.json', servers: { mine: { disabled: true } } };
    const r = resolveServers([user, off], opts(false));
    expect(r.servers).toEqual([]);
    expect(r.disabled).toEqual(['mine']);
  });

  it('expands ${VAR} in command, args, env, headers and url; an unset variable makes the server broken', () => {
    const sources: ServerSource[] = [
      {
        origin: 'user',
        file: '/h/config.json',
        servers: {
          s: { command: '${BIN}', args: ['--token=${TOKEN}'], env: { A: '${TOKEN}', B: '${NOPE:-fallback}' }, cwd: 'sub' },
          h: { type: 'http', url: 'https://${HOST}/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
          bad: { type: 'sse', url: 'https://${MISSING}/sse' },
        },
      },
    ];
    const r = resolveServers(sources, opts(false, { BIN: 'srv', TOKEN: 't0k', HOST: 'h.example' }));
    expect(r.servers).toEqual([
      { name: 's', file: '/h/config.json', transport: 'stdio', command: 'srv', args: ['--token=t0k'], env: { A: 't0k', B: 'fallback' }, cwd: '/h/sub' },
      { name: 'h', file: '/h/config.json', transport: 'http', url: 'https://h.example/mcp', headers: { Authorization: 'Bearer t0k' } },
    ]);
    expect(r.broken).toEqual([{ name: 'bad', transport: 'sse', error: 'MISSING not set (used in /h/config.json)' }]);
  });

  it('expandVars reports missing names and keeps other text', () => {
    expect(expandVars('a ${X} b ${Y:-y} $Z', { X: '1' })).toEqual({ value: 'a 1 b y $Z', missing: [], refused: [] });
    expect(expandVars('${X}${W}', {})).toEqual({ value: '', missing: ['X', 'W'], refused: [] });
    expect(expandVars('k=${K:-d}', { K: 'v' }, (n) => n === 'K')).toEqual({ value: 'k=', missing: [], refused: ['K'] });
  });

  it("a project's server expands no credential variable; the user's own and a --mcp-config file's do", () => {
    const entry = { command: 'srv', args: ['--key=${OPENAI_API_KEY}', '${MINE}'], env: { A: '${GITHUB_TOKEN}', B: '${WHO}', C: '${MY_LLM}' } };
    const env = { OPENAI_API_KEY: 'sk-x', GITHUB_TOKEN: 'ghp', WHO: 'me', MINE: 'm', MY_LLM: 'llm' };
    const sources: ServerSource[] = [
      { origin: 'project', file: '/w/.mcp.json', servers: { p: entry } },
      { origin: 'user', file: '/h/config.json', servers: { u: entry } },
      { origin: 'flag', file: '/tmp/f.json', servers: { f: entry } },
    ];
    const r = resolveServers(sources, { ...opts(true, env), credentialNames: ['MY_LLM'] });
    const byName = Object.fromEntries(r.servers.map((s) => [s.name, s]));
    expect(byName.p).toMatchObject({ args: ['--key=', 'm'], env: { B: 'me' } });
    expect(byName.u).toMatchObject({ args: ['--key=sk-x', 'm'], env: { A: 'ghp', B: 'me', C: 'llm' } });
    expect(byName.f).toMatchObject({ env: { A: 'ghp', B: 'me', C: 'llm' } });
    expect(r.refused).toEqual([{ name: 'p', file: '/w/.mcp.json', variables: ['OPENAI_API_KEY', 'GITHUB_TOKEN', 'MY_LLM'] }]);
  });
});

describe('config validation of mcpServers', () => {
  const issue = (servers: unknown) => {
    const r = configSchema().safeParse({ mcpServers: servers });
    return r.success ? undefined : `${r.error.issues[0].path.join('.')}: ${r.error.issues[0].message}`;
  };
  it('names the field at fault', () => {
    expect(issue({ a: { command: 'x' } })).toBeUndefined();
    expect(issue({ a: { type: 'http', url: 'https://x' } })).toBeUndefined();
    expect(issue({ a: {} })).toBe('mcpServers.a.command: a stdio server needs a command');
    expect(issue({ a: { url: 'https://x' } })).toBe('mcpServers.a.type: a server with a url needs "type": "http" or "sse"');
    expect(issue({ a: { type: 'sse', url: 'https://x', command: 'y' } })).toBe('mcpServers.a.command: command is for stdio servers');
    expect(issue({ a: { command: 'x', args: 'not-a-list' } })).toMatch(/^mcpServers\.a\.args: /);
    expect(issue({ a__b: { command: 'x' } })).toMatch(/^mcpServers\.a__b: server names/);
  });
});

describe('mcpToolName', () => {
  it('sanitises to what providers accept and stays unique when shortened', () => {
    expect(mcpToolName('fs', 'read_text_file')).toBe('mcp__fs__read_text_file');
    expect(mcpToolName('my.server', 'do thing/now')).toBe('mcp__my_server__do_thing_now');
    const long = mcpToolName('s', 'x'.repeat(100));
    const other = mcpToolName('s', `${'x'.repeat(99)}y`);
    expect(long).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(long).not.toBe(other);
  });
});

describe('adaptMcpTool', () => {
  it('a huge description or input schema is cut, so one tool cannot fill every request', async () => {
    // Loaded once, a definition goes with every later request of the session.
    const call = async () => ({ content: '' });
    const properties = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`field_${i}`, { type: 'string', description: 'x'.repeat(40) }]));
    const tool = adaptMcpTool('evil', { name: 'big', description: 'Does things. '.repeat(100_000), inputSchema: { type: 'object', properties } }, call);
    expect(tool.description.length).toBeLessThan(5_000);
    expect(tool.description).toContain('description cut at 4,000 characters');
    expect(JSON.stringify(tool.inputSchema).length).toBeLessThan(1_000);
    expect(tool.description).toContain('input schema');
    const small = adaptMcpTool('ok', { name: 't', description: 'Short.', inputSchema: { type: 'object', properties: { a: { type: 'string' } } } }, call);
    expect(small.description).toBe('Short.\n(MCP server "ok", tool "t")');
    expect(small.inputSchema).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
  });
});

describe('adaptInputSchema', () => {
  it('keeps an object schema, dropping only $schema', () => {
    const input = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
    expect(adaptInputSchema(input)).toEqual({ schema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, changes: [] });
  });

  it('flattens a top-level anyOf and says so', () => {
    const r = adaptInputSchema({
      type: 'object',
      anyOf: [
        { properties: { id: { type: 'string' }, q: { type: 'string' } }, required: ['id', 'q'] },
        { properties: { q: { type: 'string' }, name: { type: 'string' } }, required: ['q'] },
      ],
    });
    expect(r.schema).toEqual({ type: 'object', properties: { id: { type: 'string' }, q: { type: 'string' }, name: { type: 'string' } }, required: ['q'] });
    expect(r.changes).toEqual([expect.stringContaining('anyOf flattened')]);
  });

  it('replaces a non-object schema with an open object, and says so', () => {
    const r = adaptInputSchema({ type: 'array', items: { type: 'string' } });
    expect(r.schema).toEqual({ type: 'object', properties: {}, additionalProperties: true });
    expect(r.changes).toHaveLength(1);
    expect(adaptInputSchema(undefined).schema).toEqual({ type: 'object', properties: {} });
  });
});

describe('mapCallResult', () => {
  // A PNG header is enough for its size: signature, then the IHDR chunk (width, height).
  const png = (width: number, height: number, padTo = 0) => {
    const head = Buffer.alloc(33);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(head, 0);
    head.writeUInt32BE(13, 8);
    head.write('IHDR', 12, 'latin1');
    head.writeUInt32BE(width, 16);
    head.writeUInt32BE(height, 20);
    head.writeUInt8(8, 24);
    head.writeUInt8(6, 25);
    return Buffer.concat([head, Buffer.alloc(Math.max(0, padTo - head.length))]).toString('base64');
  };

  it('joins text, names images, links and resources, and maps isError', () => {
    const out = mapCallResult({
      content: [
        { type: 'text', text: 'one' },
        { type: 'image', data: png(2, 2), mimeType: 'image/png' },
        { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' },
        { type: 'resource', resource: { uri: 'mem://note', text: 'inline text' } },
        { type: 'resource', resource: { uri: 'mem://bin', blob: 'AAAA', mimeType: 'application/zip' } },
      ],
    });
    expect(out.content).toBe(
      'one\n[image: image/png, 33 B]\n[resource link: a.txt <file:///a.txt> (text/plain)]\n[resource mem://note]\ninline text\n[resource mem://bin: application/zip, 3 B — not shown]',
    );
    expect(out.images).toEqual([{ mimeType: 'image/png', data: png(2, 2) }]);
    expect(out.is_error).toBeUndefined();
    expect(mapCallResult({ content: [{ type: 'text', text: 'boom' }], isError: true })).toEqual({ content: 'boom', is_error: true });
    expect(mapCallResult({ content: [], structuredContent: { n: 1 } }).content).toBe('{"n":1}');
  });

  it('an image larger than the APIs accept is named, not kept (it would fail every later request)', () => {
    const big = 'A'.repeat((5 * 1024 * 1024 * 4) / 3 + 4); // a 5 MB screenshot
    const justOver = 'A'.repeat(Math.ceil((MCP_IMAGE_MAX_BYTES * 4) / 3) + 4);
    const out = mapCallResult({
      content: [
        { type: 'image', data: big, mimeType: 'image/png' },
        { type: 'image', data: png(2, 2), mimeType: 'image/png' },
        { type: 'image', data: justOver, mimeType: 'image/webp' },
      ],
    });
    expect(out.images).toEqual([{ mimeType: 'image/png', data: png(2, 2) }]);
    expect(out.content.split('\n')).toEqual([
      '[image: image/png, 5 MB — larger than the 3.75 MB the model APIs accept; not shown]',
      '[image: image/png, 33 B]',
      expect.stringMatching(/^\[image: image\/webp, 3\.75 MB — larger than the 3\.75 MB the model APIs accept; not shown\]$/),
    ]);
  });

  it('an image too long on a side, or past the bytes one result may carry, is named, not kept', () => {
    const tall = mapCallResult({ content: [{ type: 'image', data: png(1200, 9000), mimeType: 'image/png' }] });
    expect(tall.images).toBeUndefined();
    expect(tall.content).toMatch(/^\[image: image\/png, \d+ B — 1200×9000 px, longer than the 8000 px a side the model APIs accept; not shown\]$/);
    const three = mapCallResult({ content: [1, 2, 3].map(() => ({ type: 'image' as const, data: png(800, 600, 3 * 1024 * 1024), mimeType: 'image/png' })) });
    expect(three.images).toHaveLength(2);
    expect(three.content.split('\n')[2]).toBe('[image: image/png, 3 MB — over the 8 MB of images one result may carry; not shown]');
    expect(mapCallResult({ content: [{ type: 'image', data: png(800, 600), mimeType: 'image/png' }] }).images).toHaveLength(1);
  });

  it('an image whose bytes are no image, or another type than declared, is not sent as declared', () => {
    // A server's word on its image is not taken: a provider refuses bytes that do not match their
    // media type, and would refuse every later request of the session with them in its history.
    const out = mapCallResult({
      content: [
        { type: 'image', data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64'), mimeType: 'image/png' },
        { type: 'image', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]).toString('base64'), mimeType: 'image/png' },
        { type: 'image', data: png(800, 600), mimeType: 'image/jpeg' },
      ],
    });
    expect(out.images).toEqual([{ mimeType: 'image/png', data: png(800, 600) }]);
    expect(out.content.split('\n')).toEqual([
      '[image: image/png, 41 B — its bytes are no PNG, JPEG, GIF or WebP image; not shown]',
      '[image: image/png, 10 B — its bytes could not be read as image/png (damaged?); not shown]',
      '[image: image/png, 33 B]',
    ]);
  });

  it('caps long output, keeping head and tail', () => {
    const out = mapCallResult({ content: [{ type: 'text', text: `HEAD${'x\n'.repeat(100_000)}TAIL` }] });
    expect(out.content.length).toBeLessThan(31_000);
    expect(out.content.startsWith('HEAD')).toBe(true);
    expect(out.content.endsWith('TAIL')).toBe(true);
    expect(out.content).toContain('cut from the middle');
  });
});

describe('permission rules for MCP and web_fetch', () => {
  const mcp = (tool: string) => ({ tool, summary: tool });
  const fetch = (domain: string) => ({ tool: 'web_fetch', summary: 'fetch', detail: `https://${domain}/`, domain });

  it('mcp__server allows every tool of that server only; mcp__server__tool one tool', async () => {
    const gate = createHeadlessGate({ yolo: false, allow: ['mcp__fs', 'mcp__ev__echo'] });
    expect(await gate.check(mcp('mcp__fs__write_file'))).toBe('allow');
    expect(await gate.check(mcp('mcp__fsx__write_file'))).toBe('deny');
    expect(await gate.check(mcp('mcp__ev__echo'))).toBe('allow');
    expect(await gate.check(mcp('mcp__ev__get-env'))).toBe('deny');
  });

  it('a server name with an edge "_" keeps its rules: mcp__a_ is server a_, not a tool of server a', async () => {
    // Server "a" (the hostile one) names a tool "_x"; server "a_" has a tool "x".
    const ofA = mcpToolName('a', '_x');
    const ofAUnderscore = mcpToolName('a_', 'x');
    expect(ofA).not.toBe(ofAUnderscore);
    const denyA_ = createHeadlessGate({ yolo: true, user: { deny: ['mcp__a_'] } });
    expect(await denyA_.check(mcp(ofAUnderscore))).toBe('deny');
    expect(await denyA_.check(mcp(mcpToolName('_a', 'x')))).toBe('allow');
    expect(await createHeadlessGate({ yolo: true, user: { deny: ['mcp___a'] } }).check(mcp(mcpToolName('_a', 'x')))).toBe('deny');
    // A tool name cannot step into the rules of another server, nor out of its own.
    expect(await createHeadlessGate({ yolo: false, allow: ['mcp__a_'] }).check(mcp(ofA))).toBe('deny');
    expect(await createHeadlessGate({ yolo: false, allow: ['mcp__a'] }).check(mcp(ofAUnderscore))).toBe('deny');
    expect(await createHeadlessGate({ yolo: true, user: { deny: ['mcp__a'] } }).check(mcp(ofA))).toBe('deny');
  });

  it('web_fetch(domain:…) matches the host and its subdomains (*. is the same rule)', async () => {
    const gate = createHeadlessGate({ yolo: false, allow: ['web_fetch(domain:example.com)', 'web_fetch(domain:*.docs.dev)'] });
    expect(await gate.check(fetch('example.com'))).toBe('allow');
    expect(await gate.check(fetch('evil-example.com'))).toBe('deny');
    expect(await gate.check(fetch('sub.example.com'))).toBe('allow');
    expect(await gate.check(fetch('docs.dev'))).toBe('allow');
    expect(await gate.check(fetch('api.docs.dev'))).toBe('allow');
    expect(await gate.check(fetch('docs.dev.evil.io'))).toBe('deny');
    expect(() => parseRule('web_fetch(example.com)', os.homedir())).toThrow(/web_fetch\(domain:example\.com\)/);
  });

  it('a "session" answer in the REPL remembers the domain, not every fetch', async () => {
    let asked = 0;
    const gate = createSessionGate(async () => {
      asked++;
      return 'session';
    });
    expect(await gate.check(fetch('a.example'))).toBe('allow');
    expect(await gate.check(fetch('a.example'))).toBe('allow');
    expect(asked).toBe(1);
    expect(await gate.check(fetch('b.example'))).toBe('allow');
    expect(asked).toBe(2);
    expect(gate.sessionRules()).toEqual(['web_fetch(domain:a.example)', 'web_fetch(domain:b.example)']);
  });
});
