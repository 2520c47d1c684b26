/**
 * The built-in read-only tools (read_file, glob, grep, list_dir, recall) and MCP tools marked
 * `readOnlyHint` run side by side when one reply calls several of them; mutating calls keep
 * running one at a time, in call order, each after its permission. Proven with barriers, not
 * clocks: the permission gate holds every read until all the reads it waits for have asked, which
 * a one-at-a-time loop would never reach.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeBudget } from '../../src/tokens/context-budget.js';
import { userMessage } from '../../src/core/message.js';
import { ContextMeter } from '../../src/tokens/token-estimator.js';
import { createChatClient } from '../../src/loop/tool-loop.js';
import { createAnthropicAdapter } from '../../src/providers/anthropic.js';
import { createDefaultRegistry, createSessionGate } from '../../src/tools/index.js';
import { createRecallTool } from '../../src/tools/recall.js';
import { adaptMcpTool } from '../../src/tools/mcp/tool-adapter.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import type { PermissionGate, PermissionRequest, ToolRegistry } from '../../src/tools/types.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { collect } from '../kit/events.js';
import { tempDir } from '../kit/temp-dir.js';

let fake: ScriptedServer;
beforeAll(async () => {
  fake = await startAnthropicFake();
});
afterAll(async () => {
  await fake.close();
});

async function clientWith(cwd: string, permissions: PermissionGate) {
  const adapter = await createAnthropicAdapter({ model: 'test-model', apiKey: 'test-key', baseURL: fake.url, home: cwd, env: {} });
  return createChatClient(adapter, {
    cwd,
    permissions,
    budget: computeBudget({ contextWindow: 200_000, maxOutputTokens: 1000 }, { auto: false, threshold: 0.9 }),
    newGauge: () => new ContextMeter(),
    maxTurns: 10,
  });
}

/** The registry with every finished call logged as `end <id>` (the scheduler flag passed through). */
function logged(inner: ToolRegistry, log: string[]): ToolRegistry {
  return {
    definitions: () => inner.definitions(),
    concurrent: (name) => inner.concurrent?.(name) ?? false,
    async execute(call, ctx) {
      const result = await inner.execute(call, ctx);
      log.push(`end ${call.id}`);
      return result;
    },
  };
}

/**
 * A gate that allows everything but holds each read until `reads` read checks have arrived
 * (a barrier); it logs every check as `check <summary>`.
 */
function barrierGate(reads: number, log: string[]): PermissionGate {
  let arrived = 0;
  let open!: () => void;
  const all = new Promise<void>((r) => (open = r));
  return {
    async check(request: PermissionRequest) {
      log.push(`check ${request.summary}`);
      if (request.access === 'read' && arrived < reads) {
        if (++arrived === reads) open();
        await all;
      }
      return 'allow';
    },
  };
}

const toolCall = (id: string, name: string, args: Record<string, unknown>) => ({ toolCall: { id, name, args } });

async function run(cwd: string, registry: ToolRegistry, permissions: PermissionGate, steps: ReturnType<typeof toolCall>[]) {
  fake.enqueue({ steps }, { steps: [{ text: 'done' }] });
  const client = await clientWith(cwd, permissions);
  return collect(client.streamChat({ model: 'test-model', messages: [userMessage('go')], tools: registry.definitions(), maxOutputTokens: 1000 }, registry));
}

describe('read-only tool calls of one reply', () => {
  it('the built-in read-only tools are concurrent; the mutating ones are not', () => {
    const defaults = createDefaultRegistry(undefined, [createRecallTool(async () => undefined)]);
    const concurrent = defaults
      .definitions()
      .map((d) => d.name)
      .filter((n) => defaults.concurrent?.(n));
    expect(concurrent.sort()).toEqual(['glob', 'grep', 'list_dir', 'read_file', 'recall']);
  });

  it('run together, report in call order, and a write waits for them and runs alone before the reads after it', async () => {
    const cwd = fs.realpathSync(tempDir('keen-ro-'));
    fs.writeFileSync(path.join(cwd, 'a.txt'), 'alpha\n');
    fs.mkdirSync(path.join(cwd, 'src'));
    fs.writeFileSync(path.join(cwd, 'src', 'b.ts'), 'export const beta = 1;\n');
    const log: string[] = [];
    // Four reads must all have asked before any may go on: a sequential loop hangs at the first.
    const gate = barrierGate(4, log);
    const registry = logged(createDefaultRegistry(), log);
    const events = await run(cwd, registry, gate, [
      toolCall('r1', 'read_file', { path: 'a.txt' }),
      toolCall('r2', 'grep', { pattern: 'beta' }),
      toolCall('r3', 'glob', { pattern: '*.ts' }),
      toolCall('r4', 'list_dir', {}),
      toolCall('w5', 'write_file', { path: 'c.txt', content: 'gamma\n' }),
      toolCall('r6', 'read_file', { path: 'c.txt' }),
    ]);
    const finished = events.flatMap((e) => (e.type === 'tool_call_finished' ? [[e.call.id, e.result.content] as const] : []));
    expect(finished.map(([id]) => id)).toEqual(['r1', 'r2', 'r3', 'r4', 'w5', 'r6']);
    expect(finished[0][1]).toContain('alpha');
    expect(finished[1][1]).toContain('b.ts');
    expect(finished[2][1]).toContain('b.ts');
    expect(finished[3][1]).toContain('a.txt');
    // The read after the write sees what the write wrote: it did not run beside it.
    expect(finished[5][1]).toContain('gamma');
    const at = (entry: string) => log.indexOf(entry);
    const writeCheck = log.findIndex((l) => l.startsWith('check write'));
    for (const id of ['r1', 'r2', 'r3', 'r4']) expect(at(`end ${id}`)).toBeLessThan(writeCheck);
    expect(at('end w5')).toBeLessThan(log.findIndex((l, i) => i > writeCheck && l.startsWith('check read')));
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  });

  it('permission questions of concurrent reads are asked one at a time and each answer goes to its own call', async () => {
    const cwd = fs.realpathSync(tempDir('keen-ro-'));
    const outside = fs.realpathSync(tempDir('keen-ro-out-'));
    fs.writeFileSync(path.join(outside, 'one.txt'), 'first file\n');
    fs.writeFileSync(path.join(outside, 'two.txt'), 'second file\n');
    let open = 0;
    let overlapped = false;
    const asked: string[] = [];
    // Reads outside the workspace ask. The user refuses one.txt and allows two.txt.
    const gate = createSessionGate(async (request) => {
      open++;
      if (open > 1) overlapped = true;
      asked.push(request.summary);
      await new Promise((r) => setImmediate(r));
      open--;
      return request.summary.includes('one.txt') ? 'deny' : 'once';
    });
    const registry = createDefaultRegistry();
    const events = await run(cwd, registry, gate, [
      toolCall('o1', 'read_file', { path: path.join(outside, 'one.txt') }),
      toolCall('o2', 'read_file', { path: path.join(outside, 'two.txt') }),
    ]);
    expect(overlapped).toBe(false);
    expect(asked).toHaveLength(2);
    const results = events.flatMap((e) => (e.type === 'tool_call_finished' ? [e.result] : []));
    expect(results.map((r) => r.tool_call_id)).toEqual(['o1', 'o2']);
    expect(results[0].is_error).toBe(true);
    expect(results[0].content).toMatch(/declined/);
    expect(results[1].is_error).toBeUndefined();
    expect(results[1].content).toContain('second file');
  });

  it('MCP tools marked readOnlyHint run together; unmarked ones run alone, after them', async () => {
    const cwd = fs.realpathSync(tempDir('keen-ro-'));
    const log: string[] = [];
    let started = 0;
    let both!: () => void;
    const bothStarted = new Promise<void>((r) => (both = r));
    // The server side: a read-only call returns only once both read-only calls were sent.
    const caller = async (_server: string, tool: string, args: Record<string, unknown>) => {
      log.push(`call ${tool} ${String(args.q)}`);
      if (tool === 'lookup') {
        if (++started === 2) both();
        await bothStarted;
        log.push(`done ${tool} ${String(args.q)}`);
      }
      return { content: `${tool} ${String(args.q)}` };
    };
    const tool = (name: string, readOnlyHint?: boolean) =>
      adaptMcpTool('docs', { name, inputSchema: { type: 'object' }, ...(readOnlyHint === undefined ? {} : { annotations: { readOnlyHint } }) }, caller);
    const registry = createToolRegistry([tool('lookup', true), tool('publish'), tool('tag', false)]);
    expect(registry.concurrent?.('mcp__docs__lookup')).toBe(true);
    expect(registry.concurrent?.('mcp__docs__publish')).toBe(false);
    expect(registry.concurrent?.('mcp__docs__tag')).toBe(false);
    const allow: PermissionGate = { check: async () => 'allow' };
    const events = await run(cwd, registry, allow, [
      toolCall('m1', 'mcp__docs__lookup', { q: 1 }),
      toolCall('m2', 'mcp__docs__lookup', { q: 2 }),
      toolCall('m3', 'mcp__docs__publish', { q: 3 }),
    ]);
    expect(log).toEqual(['call lookup 1', 'call lookup 2', 'done lookup 1', 'done lookup 2', 'call publish 3']);
    const results = events.flatMap((e) => (e.type === 'tool_call_finished' ? [e.result.content] : []));
    expect(results).toEqual(['lookup 1', 'lookup 2', 'publish 3']);
  });
});
