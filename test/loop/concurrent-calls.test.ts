/**
 * Concurrent tool calls through the real shared loop (Anthropic adapter against the loopback
 * fake): neighbouring `concurrent` calls of one reply run at the same time, at most 4 at once;
 * other calls keep their order; results come back in call order.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { userMessage } from '../../src/core/message.js';
import { MAX_CONCURRENT_CALLS } from '../../src/loop/concurrent-calls.js';
import { createAnthropicAdapter } from '../../src/providers/anthropic.js';
import { createToolRegistry, defineTool } from '../../src/tools/registry.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { makeClient } from './loop-harness.js';
import { collect } from '../kit/events.js';
import { tempDir } from '../kit/temp-dir.js';

let fake: ScriptedServer;
const dirs: string[] = [];
beforeAll(async () => {
  fake = await startAnthropicFake();
});
afterAll(async () => {
  await fake.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** Tools that log when they start and end; `job` calls finish only once `release()` is called. */
function rig() {
  const log: string[] = [];
  let active = 0;
  let peak = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const waiters: { n: number; resolve: () => void }[] = [];
  const job = defineTool({
    name: 'job',
    description: 'a concurrent job',
    schema: z.object({ n: z.number() }),
    mutating: false,
    concurrent: true,
    async run({ n }) {
      log.push(`start ${n}`);
      active++;
      peak = Math.max(peak, active);
      for (const w of waiters.filter((w) => log.filter((l) => l.startsWith('start')).length >= w.n)) w.resolve();
      await gate;
      active--;
      log.push(`end ${n}`);
      return `job ${n} done`;
    },
  });
  const step = defineTool({
    name: 'step',
    description: 'a sequential step',
    schema: z.object({ n: z.number() }),
    mutating: false,
    async run({ n }) {
      log.push(`step ${n}`);
      return `step ${n} done`;
    },
  });
  const started = (n: number) => new Promise<void>((resolve) => (log.filter((l) => l.startsWith('start')).length >= n ? resolve() : waiters.push({ n, resolve })));
  return { registry: createToolRegistry([job, step]), log, peak: () => peak, release, started };
}

async function client() {
  const cwd = tempDir();
  dirs.push(cwd);
  const adapter = await createAnthropicAdapter({ model: 'test-model', apiKey: 'test-key', baseURL: fake.url, home: cwd, env: {} });
  return makeClient(adapter, { cwd });
}

const call = (name: string, n: number) => ({ toolCall: { id: `${name}-${n}`, name, args: { n } } });

describe('concurrent tool calls in one reply', () => {
  it(`start together, at most ${MAX_CONCURRENT_CALLS} at a time, and report in call order`, async () => {
    const r = rig();
    fake.enqueue({ steps: [1, 2, 3, 4, 5].map((n) => call('job', n)) }, { steps: [{ text: 'all done' }] });
    const run = collect((await client()).streamChat({ model: 'test-model', messages: [userMessage('go')], tools: r.registry.definitions(), maxOutputTokens: 1000 }, r.registry));
    // Four jobs are running at once before any of them finished (a sequential loop would hang here).
    await r.started(MAX_CONCURRENT_CALLS);
    expect(r.log).toEqual(['start 1', 'start 2', 'start 3', 'start 4']);
    r.release();
    const events = await run;
    expect(r.peak()).toBe(MAX_CONCURRENT_CALLS);
    expect(r.log).toContain('start 5');
    const finished = events.flatMap((e) => (e.type === 'tool_call_finished' ? [e.result.content] : []));
    expect(finished).toEqual([1, 2, 3, 4, 5].map((n) => `job ${n} done`));
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  });

  it('a sequential call between them is not reordered: jobs after it start only once it ran', async () => {
    const r = rig();
    r.release();
    fake.enqueue({ steps: [call('job', 1), call('step', 2), call('job', 3), call('job', 4)] }, { steps: [{ text: 'ok' }] });
    await collect((await client()).streamChat({ model: 'test-model', messages: [userMessage('go')], tools: r.registry.definitions(), maxOutputTokens: 1000 }, r.registry));
    expect(r.log.indexOf('step 2')).toBeGreaterThan(r.log.indexOf('end 1'));
    expect(r.log.indexOf('start 3')).toBeGreaterThan(r.log.indexOf('step 2'));
    expect(r.log.indexOf('start 4')).toBeLessThan(r.log.indexOf('end 3'));
  });
});
