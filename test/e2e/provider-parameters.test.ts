/**
 * The parameters and counts each service documents, as a spawned `keen run` shows them: the
 * output limit's field, output tokens as billed (and the cost from them), and the reasoning a
 * service wants back after a `--continue` or a `--resume <id>`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import { startOpenAIChatFake, type ChatFakeFamily } from '../fakes/openai-chat-fake.js';
import { startOpenAIResponsesFake, writeFakeCodexAuth } from '../fakes/openai-responses-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { assertBuilt } from './cli-fixtures.js';
import { runKeen } from './harness.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';

describe('keen run: what the service documents', () => {
  assertBuilt();
  const cleanups: (() => unknown)[] = [];
  afterAll(async () => {
    for (const c of cleanups) await c();
  });

  async function chat(family: ChatFakeFamily): Promise<{ fake: ScriptedServer; ws: Workspace; env: Record<string, string> }> {
    const fake = await startOpenAIChatFake({ family });
    const ws = tempWorkspace({ 'note.txt': 'forty-two\n' });
    cleanups.push(
      () => fake.close(),
      () => ws.cleanup(),
    );
    return { fake, ws, env: { OPENAI_API_KEY: 'sk-test-params', OPENAI_BASE_URL: `${fake.url}/v1` } };
  }

  it('gpt-5 through a compatible server: max_completion_tokens; xAI reasoning tokens count as output and cost', async () => {
    const { fake, ws, env } = await chat('xai');
    fake.enqueue({ steps: [{ thinking: 'Easy.' }, { text: 'Hi.' }], usage: { input: 1000, output: 253, reasoning: 227 } });
    const r = await runKeen(['run', '--provider', 'openai', '--model', 'gpt-5', '--output-format', 'json', 'hi'], { cwd: ws.cwd, home: ws.home, env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const body = fake.requests[0].body as any;
    expect(body.max_tokens).toBeUndefined();
    expect(body.max_completion_tokens).toBeGreaterThan(0);
    const out = JSON.parse(r.stdout);
    expect(out.usage).toMatchObject({ input: 1000, output: 253 });
    // gpt-5's list prices: 1.25 USD per million input tokens, 10 per million output tokens.
    expect(out.total_cost_usd).toBeCloseTo((1000 * 1.25 + 253 * 10) / 1e6, 10);
  });

  /** How a second run picks up the first one's session. */
  const RESUMES = [
    { how: '--continue', args: (): string[] => ['--continue'] },
    { how: '--resume <id>', args: (id: string): string[] => ['--resume', id] },
  ];
  const RESPONSES_CASES = ['openai-responses', 'codex'].flatMap((provider) => RESUMES.map((resume) => ({ provider, ...resume })));

  it.each(RESPONSES_CASES)('$provider: the session id is prompt_cache_key, the same after $how', async ({ provider, args: resume }) => {
    const fake = await startOpenAIResponsesFake();
    const ws = tempWorkspace();
    cleanups.push(
      () => fake.close(),
      () => ws.cleanup(),
    );
    const codexHome = path.join(ws.home, 'codex');
    if (provider === 'codex') await writeFakeCodexAuth(codexHome);
    const env = provider === 'codex' ? { CODEX_HOME: codexHome, KEEN_CODEX_BASE_URL: fake.url } : { OPENAI_API_KEY: 'sk-test-params', OPENAI_BASE_URL: `${fake.url}/v1` };
    fake.enqueue({ steps: [{ text: 'First.' }] }, { steps: [{ text: 'Second.' }] });
    const first = await runKeen(['run', '--provider', provider, '--output-format', 'json', 'one'], { cwd: ws.cwd, home: ws.home, env });
    expect(first.code).toBe(0);
    const sessionId = JSON.parse(first.stdout).session_id;
    expect(sessionId).toEqual(expect.any(String));
    const again = await runKeen(['run', '--provider', provider, ...resume(sessionId), '--output-format', 'json', 'two'], { cwd: ws.cwd, home: ws.home, env });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).session_id).toBe(sessionId);
    expect(fake.requests.map((r) => r.body.prompt_cache_key)).toEqual([sessionId, sessionId]);
    if (provider === 'codex') expect(fake.requests.map((r) => r.headers.session_id)).toEqual([sessionId, sessionId]);
    // The resumed request starts with what the first one sent, so the service finds it cached.
    expect(JSON.parse(again.stdout).usage.cache_read).toBeGreaterThan(0);
  });

  it.each(RESUMES)('DeepSeek thinking mode: after $how the tool turn keeps every reasoning_content', async ({ args: resume }) => {
    const { fake, ws, env } = await chat('deepseek');
    fake.enqueue(
      { steps: [{ thinking: 'Read the note.' }, { toolCall: { name: 'read_file', args: { path: 'note.txt' } } }] },
      { steps: [{ thinking: 'It says forty-two.' }, { text: 'forty-two' }] },
      { steps: [{ text: 'Still forty-two.' }] },
    );
    const args = (prompt: string, more: string[] = []) => ['run', '--provider', 'openai', '--model', 'deepseek-reasoner', '--output-format', 'json', ...more, prompt];
    const first = await runKeen(args('what does note.txt say?'), { cwd: ws.cwd, home: ws.home, env });
    expect(first.code).toBe(0);
    const out = JSON.parse(first.stdout);
    expect(out.result).toBe('forty-two');
    const again = await runKeen(args('and now?', resume(out.session_id)), { cwd: ws.cwd, home: ws.home, env });
    expect(again.stderr).toBe('');
    expect(JSON.parse(again.stdout)).toMatchObject({ session_id: out.session_id, result: 'Still forty-two.' });
    expect(fake.requests).toHaveLength(3);
    const answered = (fake.requests.at(-1)!.body as any).messages.find((m: any) => m.role === 'assistant' && m.content === 'forty-two');
    expect(answered.reasoning_content).toBe('It says forty-two.');
  });
});

describe('keen run: library warnings go through Keen', () => {
  assertBuilt();
  const cleanups: (() => unknown)[] = [];
  afterAll(async () => {
    for (const c of cleanups) await c();
  });

  it("the Anthropic SDK's deprecated-model warning: one keen: warning line per session, never raw", async () => {
    const fake = await startAnthropicFake();
    const ws = tempWorkspace({ 'note.txt': 'forty-two\n' });
    cleanups.push(
      () => fake.close(),
      () => ws.cleanup(),
    );
    fake.enqueue({ steps: [{ toolCall: { name: 'read_file', args: { path: 'note.txt' } } }] }, { steps: [{ text: 'forty-two' }] });
    const env = { ANTHROPIC_API_KEY: 'sk-ant-test-warn', ANTHROPIC_BASE_URL: fake.url };
    const r = await runKeen(['run', '--model', 'claude-sonnet-4-5', 'what does note.txt say?'], { cwd: ws.cwd, home: ws.home, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('forty-two\n');
    expect(fake.requests).toHaveLength(2);
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^keen: warning: Anthropic: The model 'claude-sonnet-4-5' is deprecated and will reach end-of-life on .+ Please migrate to a newer model\./);
  });
});
