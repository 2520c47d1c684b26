import fs from 'node:fs';
import path from 'node:path';
import type { ProviderAdapter } from '../../src/core/provider.js';
import { createAnthropicAdapter } from '../../src/providers/anthropic.js';
import { createBedrockAdapter } from '../../src/providers/bedrock.js';
import { createGenkitAdapter } from '../../src/providers/genkit.js';
import { createCodexAdapter } from '../../src/providers/openai-codex.js';
import { createOpenAIChatAdapter } from '../../src/providers/openai-chat.js';
import { createOpenAIResponsesAdapter } from '../../src/providers/openai-responses.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import { startBedrockFake, useFakeAwsEnv } from '../fakes/bedrock-fake.js';
import { startGeminiFake } from '../fakes/gemini-fake.js';
import { startOpenAIChatFake } from '../fakes/openai-chat-fake.js';
import { fakeJwt, startOpenAIResponsesFake, writeFakeCodexAuth } from '../fakes/openai-responses-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';

/** A request body split into the parts prefix parity is about. */
export interface WireParts {
  system: unknown;
  tools: unknown;
  messages: any[];
}

/**
 * One provider for the conformance suite: its loopback fake, its adapter against the fake, and
 * how to read its wire format. `userTurns: 'merged'` marks providers that refuse two user turns in
 * a row, so the compaction instruction joins the final user turn instead of following it.
 */
export interface ProviderCase {
  name: string;
  start(): Promise<ScriptedServer>;
  /** The adapter against `fake`; `env` adds variables the adapter reads (e.g. KEEN_RECORD). */
  adapter(fake: ScriptedServer, home: string, env?: NodeJS.ProcessEnv): Promise<ProviderAdapter>;
  parts(body: any): WireParts;
  userTurns: 'separate' | 'merged';
  /** Undo process-level setup (env) after the suite. */
  setup?(): () => void;
}

/** Remove cache markers that move each request by design (Anthropic, Bedrock). */
export function stripCacheMarkers<T>(value: T): T {
  const json = JSON.stringify(value, (k, v) => {
    if (k === 'cache_control') return undefined;
    if (Array.isArray(v)) return v.filter((b) => !(b && typeof b === 'object' && 'cachePoint' in b));
    return v;
  });
  return json === undefined ? value : JSON.parse(json);
}

const base = (home: string, env: NodeJS.ProcessEnv = {}) => ({ maxRetries: 2, home, env });

export const PROVIDER_CASES: ProviderCase[] = [
  {
    name: 'anthropic',
    start: startAnthropicFake,
    adapter: (fake, home, env) => createAnthropicAdapter({ ...base(home, env), model: 'test-model', apiKey: 'k', baseURL: fake.url }),
    parts: (b) => ({ system: b.system, tools: b.tools, messages: b.messages }),
    userTurns: 'separate',
  },
  {
    name: 'openai',
    // DeepSeek's replay rule is the strictest a Chat Completions server has.
    start: () => startOpenAIChatFake({ family: 'deepseek' }),
    adapter: (fake, home, env) => createOpenAIChatAdapter({ ...base(home, env), model: 'gpt-test', apiKey: 'k', baseURL: `${fake.url}/v1` }),
    parts: (b) => ({ system: b.messages.filter((m: any) => m.role === 'system'), tools: b.tools, messages: b.messages.filter((m: any) => m.role !== 'system') }),
    userTurns: 'separate',
  },
  {
    name: 'openai-responses',
    start: startOpenAIResponsesFake,
    adapter: (fake, home, env) => createOpenAIResponsesAdapter({ ...base(home, env), model: 'gpt-test', apiKey: 'k', baseURL: `${fake.url}/v1` }),
    parts: (b) => ({ system: b.instructions, tools: b.tools, messages: b.input }),
    userTurns: 'separate',
  },
  {
    name: 'codex',
    start: startOpenAIResponsesFake,
    adapter: async (fake, home, env = {}) => {
      // Inside `home`, so the test that made `home` removes it too.
      const codexHome = fs.mkdtempSync(path.join(home, 'codex-'));
      const claims = { exp: Math.floor(Date.now() / 1000) + 3600, 'https://api.openai.com/auth': { chatgpt_account_id: 'acct_conf' } };
      await writeFakeCodexAuth(codexHome, { accessToken: fakeJwt(claims), refreshToken: 'r' });
      return createCodexAdapter({ ...base(home), model: 'gpt-5-codex', env: { ...env, CODEX_HOME: codexHome, KEEN_CODEX_BASE_URL: `${fake.url}/backend-api/codex` } });
    },
    parts: (b) => ({ system: b.instructions, tools: b.tools, messages: b.input }),
    userTurns: 'separate',
  },
  {
    name: 'bedrock',
    start: startBedrockFake,
    setup: () => useFakeAwsEnv(),
    adapter: (fake, home, env) => createBedrockAdapter({ ...base(home, env), model: 'anthropic.claude-sonnet-4-5-20250929-v1:0', baseURL: fake.url, region: 'us-east-1' }),
    parts: (b) => ({ system: b.system, tools: b.toolConfig, messages: b.messages }),
    userTurns: 'merged',
  },
  {
    name: 'genkit',
    start: startGeminiFake,
    adapter: (fake, home, env) => createGenkitAdapter({ ...base(home, env), model: 'gemini-2.5-flash', apiKey: 'k', baseURL: fake.url }),
    parts: (b) => ({ system: b.systemInstruction, tools: b.tools, messages: b.contents }),
    userTurns: 'separate',
  },
];
