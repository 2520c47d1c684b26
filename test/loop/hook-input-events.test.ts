/**
 * The loop says when a PreToolUse hook changed a call's input: `tool_call_input_changed` between
 * the call's start and its end, and `tool_call_finished` carries the call as it ran. The real loop
 * over the Anthropic adapter and its wire fake, the real hooks layer with sh hook commands, and the
 * real permission gate (which is told the call as it will run).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userMessage } from '../../src/core/message.js';
import { hooksRegistry } from '../../src/hooks/hooks-registry.js';
import { compileMatcher } from '../../src/hooks/matcher.js';
import { createSessionHooks } from '../../src/hooks/session-hooks.js';
import { createChatClient } from '../../src/loop/tool-loop.js';
import { createAnthropicAdapter } from '../../src/providers/anthropic.js';
import { computeBudget } from '../../src/tokens/context-budget.js';
import { ContextMeter } from '../../src/tokens/token-estimator.js';
import { createDefaultRegistry, createHeadlessGate } from '../../src/tools/index.js';
import type { PermissionGate, PermissionRequest } from '../../src/tools/types.js';
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

/** A PreToolUse hook for `matcher` that answers allow with `input` when its stdin contains `when`. */
function rewrite(matcher: string, when: string, input: unknown) {
  const answer = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: input } });
  return {
    event: 'PreToolUse' as const,
    matches: compileMatcher(matcher),
    command: `input=$(cat); case "$input" in *${when}*) printf '%s' '${answer}' ;; esac`,
    timeoutSeconds: 10,
    file: 'config.json',
  };
}

async function run(cwd: string, entries: ReturnType<typeof rewrite>[], permissions: PermissionGate, calls: { id: string; name: string; args: unknown }[]) {
  fake.enqueue({ steps: calls.map((c) => ({ toolCall: c })) }, { steps: [{ text: 'done' }] });
  const adapter = await createAnthropicAdapter({ model: 'test-model', apiKey: 'test-key', baseURL: fake.url, home: cwd, env: {} });
  const client = createChatClient(adapter, {
    cwd,
    permissions,
    budget: computeBudget({ contextWindow: 200_000, maxOutputTokens: 1000 }, { auto: false, threshold: 0.9 }),
    newGauge: () => new ContextMeter(),
    maxTurns: 10,
  });
  const hooks = createSessionHooks({ cwd, env: process.env, entries, warn: () => undefined });
  const registry = hooksRegistry(createDefaultRegistry(), hooks);
  return collect(client.streamChat({ model: 'test-model', messages: [userMessage('go')], tools: registry.definitions(), maxOutputTokens: 1000 }, registry));
}

const shape = (events: Awaited<ReturnType<typeof run>>) =>
  events.flatMap((e) =>
    e.type === 'tool_call_started' || e.type === 'tool_call_input_changed' || e.type === 'tool_call_finished' ? [`${e.type} ${e.call.id} ${e.call.args}`] : [],
  );

describe('tool_call_input_changed', () => {
  it('comes between the start and the end of the call a hook rewrote; the end carries the call as run', async () => {
    const cwd = fs.realpathSync(tempDir('keen-hook-input-'));
    fs.writeFileSync(path.join(cwd, 'a.txt'), 'alpha\n');
    fs.writeFileSync(path.join(cwd, 'b.txt'), 'beta\n');
    const events = await run(cwd, [rewrite('write_file', 'a.txt', { path: 'b.txt', content: 'hooked\n' })], createHeadlessGate({ yolo: true }), [
      { id: 'w1', name: 'write_file', args: { path: 'a.txt', content: 'model\n' } },
      { id: 'w2', name: 'write_file', args: { path: 'c.txt', content: 'plain\n' } },
    ]);
    expect(shape(events)).toEqual([
      'tool_call_started w1 {"path":"a.txt","content":"model\\n"}',
      'tool_call_input_changed w1 {"path":"b.txt","content":"hooked\\n"}',
      'tool_call_finished w1 {"path":"b.txt","content":"hooked\\n"}',
      'tool_call_started w2 {"path":"c.txt","content":"plain\\n"}',
      'tool_call_finished w2 {"path":"c.txt","content":"plain\\n"}',
    ]);
    const changed = events.find((e) => e.type === 'tool_call_input_changed');
    expect(changed && 'original' in changed ? changed.original.args : '').toBe('{"path":"a.txt","content":"model\\n"}');
    expect(fs.readFileSync(path.join(cwd, 'b.txt'), 'utf8')).toBe('hooked\n');
    // The model's message keeps the call it made: the history is the model's.
    const assistant = events.find((e) => e.type === 'message' && e.message.role === 'assistant');
    expect(assistant && assistant.type === 'message' && assistant.message.role === 'assistant' ? assistant.message.tool_calls?.[0].args : '').toContain('a.txt');
  });

  it('a concurrent call rewritten before its turn is announced after its own start, never before', async () => {
    const cwd = fs.realpathSync(tempDir('keen-hook-input-'));
    fs.writeFileSync(path.join(cwd, 'a.txt'), 'alpha\n');
    fs.writeFileSync(path.join(cwd, 'b.txt'), 'beta\n');
    // A barrier: the first read waits for the second's question, which comes after its rewrite was reported.
    let arrived!: () => void;
    const second = new Promise<void>((resolve) => (arrived = resolve));
    const gate: PermissionGate = {
      async check(request) {
        if (request.call) arrived();
        else await second;
        return 'allow';
      },
    };
    const events = await run(cwd, [rewrite('read_file', 'second', { path: 'b.txt' })], gate, [
      { id: 'r1', name: 'read_file', args: { path: 'a.txt' } },
      { id: 'r2', name: 'read_file', args: { path: 'second' } },
    ]);
    expect(shape(events)).toEqual([
      'tool_call_started r1 {"path":"a.txt"}',
      'tool_call_finished r1 {"path":"a.txt"}',
      'tool_call_started r2 {"path":"second"}',
      'tool_call_input_changed r2 {"path":"b.txt"}',
      'tool_call_finished r2 {"path":"b.txt"}',
    ]);
    const finished = events.filter((e) => e.type === 'tool_call_finished');
    expect(finished[1].type === 'tool_call_finished' ? finished[1].result.content : '').toContain('beta');
  });

  it('the permission gate is told the call as it will run', async () => {
    const cwd = fs.realpathSync(tempDir('keen-hook-input-'));
    const asked: PermissionRequest[] = [];
    const gate: PermissionGate = {
      async check(request) {
        asked.push(request);
        return 'allow';
      },
    };
    await run(cwd, [rewrite('bash', 'ls', { command: 'echo hooked' })], gate, [{ id: 'b1', name: 'bash', args: { command: 'ls' } }]);
    expect(asked).toHaveLength(1);
    expect(asked[0].command).toBe('echo hooked');
    expect(asked[0].call).toEqual({ id: 'b1', name: 'bash', args: '{"command":"echo hooked"}' });
    expect(asked[0].summary).toContain('(input changed by a PreToolUse hook)');
  });
});
