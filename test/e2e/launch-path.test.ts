/**
 * The launch path of `keen run` (issue 17: launch → first request): Node 20's `Headers`,
 * `Request`, `Response` and `FormData` live in its bundled undici, whose first touch costs ~20 ms.
 * The bundled SDKs meet Keen's own classes (src/net/fetch-globals.ts) and http-fetch answers
 * with them, so a one-turn run loads no undici at all. A spawned `bin/keen.js` with a preload that
 * lists the built-in modules it loaded shows it; any new `new Headers()` on the path fails here.
 * The bundle also carries the built-in tools' definitions computed at build time
 * (src/tools/definition-table.ts): the tools a bundled run sends must be the ones the sources
 * define.
 *
 * The bundle is one script that the launcher compiles with V8's cached data (src/launch/launch.ts);
 * its `import()` of the packages left external goes to Node's own loader. Here a run imports two of
 * them (ripgrep for grep, the MCP SDK for a declared server) with no cache, from the cache it
 * wrote, from a cache V8 refuses, and compiled through Node's loader under --enable-source-maps.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCacheFile, writeCacheFile } from '../../src/launch/compile-cache.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import { startOpenAIChatFake } from '../fakes/openai-chat-fake.js';
import { startOpenAIResponsesFake } from '../fakes/openai-responses-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { assertBuilt } from './cli-fixtures.js';
import { TmuxKeen } from '../repl/tmux.js';
import { toolResults } from './cli-fixtures.js';
import { runKeen } from './harness.js';
import { everything, writeUserConfig } from './mcp-fixtures.js';
import { tempWorkspace } from '../kit/temp-dir.js';
import { createDefaultRegistry } from '../../src/tools/index.js';

const PROBE = path.resolve(import.meta.dirname, '../fixtures/module-probe.cjs');

const CASES: { provider: string; start: () => Promise<ScriptedServer>; env: (url: string) => Record<string, string> }[] = [
  { provider: 'anthropic', start: startAnthropicFake, env: (url) => ({ ANTHROPIC_API_KEY: 'sk-ant-test-launch', ANTHROPIC_BASE_URL: url }) },
  { provider: 'openai', start: startOpenAIChatFake, env: (url) => ({ OPENAI_API_KEY: 'sk-test-launch', OPENAI_BASE_URL: `${url}/v1` }) },
  { provider: 'openai-responses', start: startOpenAIResponsesFake, env: (url) => ({ OPENAI_API_KEY: 'sk-test-launch', OPENAI_BASE_URL: `${url}/v1` }) },
];

describe('the launch path of keen run', () => {
  assertBuilt();
  const cleanups: (() => unknown)[] = [];
  afterAll(async () => {
    for (const c of cleanups) await c();
  });

  it.each(CASES.map((c) => [c.provider, c] as const))('%s: a one-turn run answers without loading Node’s undici or image-size', async (_name, c) => {
    const fake = await c.start();
    const ws = tempWorkspace();
    cleanups.push(
      () => fake.close(),
      () => ws.cleanup(),
    );
    const out = path.join(ws.home, 'modules.json');
    fake.enqueue({ steps: [{ text: `hello from the ${c.provider} fake` }] });
    const res = await runKeen(['run', '--provider', c.provider, 'say hello'], {
      cwd: ws.cwd,
      home: ws.home,
      env: { ...c.env(fake.url), NODE_OPTIONS: `--require ${PROBE}`, KEEN_TEST_MODULES_OUT: out },
    });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(`hello from the ${c.provider} fake`);
    const { builtins, required } = JSON.parse(fs.readFileSync(out, 'utf8')) as { builtins: string[]; required: string[] };
    expect(builtins.some((m) => m.includes('internal/deps/undici'))).toBe(false);
    expect(builtins).toContain('NativeModule http');
    // A loopback http server needs no TLS, and a run without stream-json input reads no lines.
    expect(builtins).not.toContain('NativeModule tls');
    expect(builtins).not.toContain('NativeModule readline');
    // image-size is loaded only when a request holds more than 20 images (image-budget.ts).
    expect(required.some((f) => f.includes('image-size'))).toBe(false);
  });

  it('sends the built-in tools exactly as the sources define them (the build-time table is not stale)', async () => {
    const fake = await startAnthropicFake();
    const ws = tempWorkspace();
    cleanups.push(
      () => fake.close(),
      () => ws.cleanup(),
    );
    fake.enqueue({ steps: [{ text: 'ok' }] });
    const res = await runKeen(['run', 'say hello'], { cwd: ws.cwd, home: ws.home, env: { ANTHROPIC_API_KEY: 'sk-ant-test-launch', ANTHROPIC_BASE_URL: fake.url } });
    expect(res.code, res.stderr).toBe(0);
    const sent = (fake.requests[0].body.tools as { name: string; description: string; input_schema: unknown }[]).map(({ name, description, input_schema }) => ({
      name,
      description,
      input_schema,
    }));
    const sources = createDefaultRegistry()
      .definitions()
      .map(({ name, description, input_schema }) => ({ name, description, input_schema }));
    expect(sent.length).toBeGreaterThan(sources.length);
    for (const def of sources) expect(sent.find((t) => t.name === def.name)).toEqual(def);
  });

  it('imports the external packages at run time: no cache, its own cache, a refused cache, source maps', async () => {
    const fake = await startAnthropicFake();
    const ws = tempWorkspace();
    cleanups.push(
      () => fake.close(),
      () => ws.cleanup(),
    );
    fs.writeFileSync(path.join(ws.cwd, 'notes.txt'), 'the needle is here\n');
    writeUserConfig(ws.home, { mcpServers: { everything: everything() } });
    const cache = path.join(ws.home, 'compile-cache');
    const run = async (label: string, env: Record<string, string> = {}) => {
      const from = fake.requests.length;
      fake.enqueue(
        {
          steps: [{ toolCall: { name: 'grep', args: { pattern: 'needle' } } }, { toolCall: { name: 'mcp__everything__echo', args: { message: label } } }],
        },
        { steps: [{ text: `done ${label}` }] },
      );
      const res = await runKeen(['run', 'search and echo'], {
        cwd: ws.cwd,
        home: ws.home,
        env: { ANTHROPIC_API_KEY: 'sk-ant-test-launch', ANTHROPIC_BASE_URL: fake.url, KEEN_COMPILE_CACHE: cache, ...env },
      });
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toBe(`done ${label}\n`);
      expect(res.stderr).toBe('');
      const [grep, echo] = toolResults(fake.requests[from + 1]);
      expect(grep).toEqual({ text: 'notes.txt:1:the needle is here', isError: false });
      expect(echo).toEqual({ text: `Echo: ${label}`, isError: false });
    };
    const cacheFile = () => {
      const names = fs.existsSync(cache) ? fs.readdirSync(cache) : [];
      expect(names).toHaveLength(1);
      return path.join(cache, names[0]);
    };

    await run('without a cache');
    const written = fs.readFileSync(cacheFile());
    await run('from its cache');
    // V8 took the cached data: a refused cache would have been written again.
    expect(fs.readFileSync(cacheFile()).equals(written)).toBe(true);

    const refused = Buffer.alloc(readCacheFile(cacheFile())?.length ?? 0, 0x42);
    writeCacheFile(cacheFile(), refused);
    await run('from a refused cache');
    expect(readCacheFile(cacheFile())?.equals(refused)).toBe(false);

    await run('with source maps', { NODE_OPTIONS: '--enable-source-maps' });
  });

  it('the REPL lays out its first frames without Node’s undici (yoga’s wasm is decoded without fetch) or string-width', async () => {
    const fake = await startAnthropicFake();
    const ws = tempWorkspace();
    cleanups.push(
      () => fake.close(),
      () => ws.cleanup(),
    );
    const out = path.join(ws.home, 'modules.json');
    const t = TmuxKeen.start({
      cwd: ws.cwd,
      env: { KEEN_HOME: ws.home, ANTHROPIC_API_KEY: 'sk-ant-test-launch', ANTHROPIC_BASE_URL: fake.url, NODE_OPTIONS: `--require ${PROBE}`, KEEN_TEST_MODULES_OUT: out },
    });
    try {
      await t.waitFor('% context');
      t.keys('C-c');
      t.keys('C-c');
      await t.waitFor('[keen exited 0]');
    } finally {
      t.kill();
    }
    const { builtins, required } = JSON.parse(fs.readFileSync(out, 'utf8')) as { builtins: string[]; required: string[] };
    expect(builtins).toContain('NativeModule tty');
    expect(builtins.some((m) => m.includes('internal/deps/undici'))).toBe(false);
    // The frames' text is narrow: string-width (whose import builds costly Unicode regexes) is
    // loaded only for text the fast path leaves to it (src/repl/fast-string-width.ts).
    expect(required.filter((f) => /[\\/]string-width[\\/]/.test(f))).toEqual([]);
  });
});
