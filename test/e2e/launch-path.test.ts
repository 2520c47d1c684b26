/**
 * The launch path of `keen run` (issue 17: launch → first request): Node 20's `Headers`,
 * `Request`, `Response` and `FormData` live in its bundled undici, whose first touch costs ~20 ms.
 * The bundled SDKs meet Keen's own classes (src/net/fetch-globals.ts) and http-fetch answers
 * with them, so a one-turn run loads no undici at all. A spawned `bin/keen.js` with a preload that
 * lists the built-in modules it loaded shows it; any new `new Headers()` on the path fails here.
 * The bundle also carries the built-in tools' definitions computed at build time
 * (src/tools/definition-table.ts): the tools a bundled run sends must be the ones the sources
 * define.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import { startOpenAIChatFake } from '../fakes/openai-chat-fake.js';
import { startOpenAIResponsesFake } from '../fakes/openai-responses-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { assertBuilt } from './cli-fixtures.js';
import { runKeen } from './harness.js';
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
});
