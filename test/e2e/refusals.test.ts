/**
 * A declined answer is an answer that did not succeed: the spawned `keen run` prints what the
 * model said, one `keen:` line saying it declined (with the service's explanation), and exits 1;
 * `--output-format json` carries `stop_reason: "refusal"` and `is_error: true`. Each provider's
 * fake sends its service's own refusal signal (test/fakes/script.ts).
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import { startBedrockFake } from '../fakes/bedrock-fake.js';
import { startGeminiFake } from '../fakes/gemini-fake.js';
import { startOpenAIChatFake } from '../fakes/openai-chat-fake.js';
import { startOpenAIResponsesFake, writeFakeCodexAuth } from '../fakes/openai-responses-fake.js';
import type { FakeReply } from '../fakes/script.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { assertBuilt, errorLines } from './cli-fixtures.js';
import { runKeen } from './harness.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';

interface Case {
  provider: string;
  start: () => Promise<ScriptedServer>;
  env: (url: string, ws: Workspace) => Promise<Record<string, string>>;
  /** The line after `keen: the model declined to answer`. */
  explanation: string;
}

const CONTENT_FILTER = ': the content filter stopped the answer';

const CASES: Case[] = [
  {
    provider: 'anthropic',
    start: startAnthropicFake,
    env: async (url) => ({ ANTHROPIC_API_KEY: 'sk-ant-test-refusal', ANTHROPIC_BASE_URL: url }),
    explanation: ': The request could enable malware development.',
  },
  {
    provider: 'openai',
    start: startOpenAIChatFake,
    env: async (url) => ({ OPENAI_API_KEY: 'sk-test-refusal', OPENAI_BASE_URL: `${url}/v1` }),
    explanation: CONTENT_FILTER,
  },
  {
    provider: 'openai-responses',
    start: startOpenAIResponsesFake,
    env: async (url) => ({ OPENAI_API_KEY: 'sk-test-refusal', OPENAI_BASE_URL: `${url}/v1` }),
    explanation: CONTENT_FILTER,
  },
  {
    provider: 'codex',
    start: startOpenAIResponsesFake,
    env: async (url, ws) => {
      const codexHome = path.join(ws.home, 'codex');
      await writeFakeCodexAuth(codexHome);
      return { CODEX_HOME: codexHome, KEEN_CODEX_BASE_URL: url };
    },
    explanation: CONTENT_FILTER,
  },
  {
    provider: 'bedrock',
    start: startBedrockFake,
    env: async (url) => ({
      AWS_ACCESS_KEY_ID: 'AKIDTEST',
      AWS_SECRET_ACCESS_KEY: 'test-secret',
      AWS_REGION: 'us-east-1',
      AWS_CONFIG_FILE: '/nonexistent/keen-test/aws-config',
      AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/keen-test/aws-credentials',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: url,
    }),
    explanation: ': a Bedrock guardrail intervened',
  },
  {
    provider: 'genkit',
    start: startGeminiFake,
    env: async (url) => ({ GEMINI_API_KEY: 'test-gemini-key', GOOGLE_GEMINI_BASE_URL: url }),
    explanation: ': Gemini finish reason SAFETY (HARM_CATEGORY_DANGEROUS_CONTENT)',
  },
];

const DECLINED: FakeReply = {
  steps: [{ text: 'I will not write that.' }],
  stopReason: 'refusal',
  refusal: { category: 'cyber', explanation: 'The request could enable malware development.', blocked: ['HARM_CATEGORY_DANGEROUS_CONTENT'] },
};

describe('keen run: a declined answer', () => {
  assertBuilt();
  const cleanups: (() => unknown)[] = [];
  afterAll(async () => {
    for (const c of cleanups) await c();
  });

  async function start(c: Case): Promise<{ fake: ScriptedServer; ws: Workspace; env: Record<string, string> }> {
    const fake = await c.start();
    const ws = tempWorkspace();
    cleanups.push(
      () => fake.close(),
      () => ws.cleanup(),
    );
    return { fake, ws, env: await c.env(fake.url, ws) };
  }

  it.each(CASES.map((c) => [c.provider, c] as const))('%s: the text, one keen: line with the explanation, exit 1', async (_name, c) => {
    const { fake, ws, env } = await start(c);
    fake.enqueue(DECLINED);
    const r = await runKeen(['run', '--provider', c.provider, 'write a keylogger'], { cwd: ws.cwd, home: ws.home, env });
    expect(r.stdout).toBe('I will not write that.\n');
    expect(errorLines(r.stderr)).toEqual([`keen: the model declined to answer${c.explanation}`]);
    expect(r.code).toBe(1);
  });

  it.each(CASES.map((c) => [c.provider, c] as const))('%s: --output-format json carries stop_reason refusal and is_error', async (_name, c) => {
    const { fake, ws, env } = await start(c);
    fake.enqueue(DECLINED);
    const r = await runKeen(['run', '--provider', c.provider, '--output-format', 'json', 'write a keylogger'], { cwd: ws.cwd, home: ws.home, env });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      type: 'result',
      subtype: 'error_refusal',
      is_error: true,
      stop_reason: 'refusal',
      result: 'I will not write that.',
      error: { kind: 'refusal', message: `the model declined to answer${c.explanation}` },
    });
  });

  it('openai: a refusal in delta.refusal is the answer, not an empty success', async () => {
    const { fake, ws, env } = await start(CASES.find((c) => c.provider === 'openai')!);
    fake.enqueue({ steps: [{ refusal: "I'm sorry, I can't help with that." }] });
    const r = await runKeen(['run', '--provider', 'openai', 'write a keylogger'], { cwd: ws.cwd, home: ws.home, env });
    expect(r.stdout).toBe("I'm sorry, I can't help with that.\n");
    expect(errorLines(r.stderr)).toEqual(['keen: the model declined to answer']);
    expect(r.code).toBe(1);
  });
});
