/**
 * Each provider's fake with its over-window option, and how a spawned keen reaches it: the model
 * entry's fields (for the user's config: a project's config may not set base URLs) and the
 * environment. For spawned tests that run the same scenario against every service; `startProvider`
 * also serves runs on a provider's default model, with no config entry.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import { FAKE_AWS_ENV, startBedrockFake } from '../fakes/bedrock-fake.js';
import type { ContextWindowed } from '../fakes/context-window.js';
import { startGeminiFake } from '../fakes/gemini-fake.js';
import { startOpenAIChatFake } from '../fakes/openai-chat-fake.js';
import { fakeJwt, startOpenAIResponsesFake, writeFakeCodexAuth } from '../fakes/openai-responses-fake.js';
import { onTestFinished } from 'vitest';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';

export type WindowedFake = ScriptedServer & ContextWindowed;

export interface ProviderCase {
  provider: string;
  start(): Promise<WindowedFake>;
  /** The model entry's extra fields and the environment for the spawned keen; `tmp` is a scratch folder. */
  setup(fake: WindowedFake, tmp: string): Promise<{ entry: Record<string, unknown>; env: Record<string, string> }>;
  /** The variables that give keen the fake's address when no model entry names it. */
  urlEnv(url: string): Record<string, string>;
  /** The last message of a request body in this provider's wire shape. */
  lastMessage(body: any): unknown;
}

const lastOf = (list: unknown) => (Array.isArray(list) ? list.at(-1) : undefined);

export const PROVIDER_CASES: ProviderCase[] = [
  {
    provider: 'anthropic',
    start: () => startAnthropicFake(),
    setup: async (f) => ({ entry: { baseURL: f.url }, env: { ANTHROPIC_API_KEY: 'sk-e2e-0000' } }),
    urlEnv: (url) => ({ ANTHROPIC_BASE_URL: url }),
    lastMessage: (b) => lastOf(b.messages),
  },
  {
    provider: 'openai',
    start: () => startOpenAIChatFake(),
    setup: async (f) => ({ entry: { id: 'gpt-test', baseURL: `${f.url}/v1` }, env: { OPENAI_API_KEY: 'sk-e2e-0000' } }),
    urlEnv: (url) => ({ OPENAI_BASE_URL: `${url}/v1` }),
    lastMessage: (b) => lastOf(b.messages),
  },
  {
    provider: 'openai-responses',
    start: () => startOpenAIResponsesFake(),
    setup: async (f) => ({ entry: { id: 'gpt-test', baseURL: `${f.url}/v1` }, env: { OPENAI_API_KEY: 'sk-e2e-0000' } }),
    urlEnv: (url) => ({ OPENAI_BASE_URL: `${url}/v1` }),
    lastMessage: (b) => lastOf(b.input),
  },
  {
    provider: 'codex',
    start: () => startOpenAIResponsesFake(),
    setup: async (f, tmp) => {
      const codexHome = path.join(tmp, 'codex');
      fs.mkdirSync(codexHome, { recursive: true });
      await writeFakeCodexAuth(codexHome, {
        accessToken: fakeJwt({ exp: Math.floor(Date.now() / 1000) + 3600, 'https://api.openai.com/auth': { chatgpt_account_id: 'acct_e2e' } }),
        refreshToken: 'r',
      });
      return { entry: { id: 'gpt-5-codex' }, env: { CODEX_HOME: codexHome, KEEN_CODEX_BASE_URL: `${f.url}/backend-api/codex` } };
    },
    urlEnv: () => ({}),
    lastMessage: (b) => lastOf(b.input),
  },
  {
    provider: 'bedrock',
    start: () => startBedrockFake(),
    setup: async (f) => ({
      entry: { id: 'anthropic.claude-sonnet-4-5-20250929-v1:0', baseURL: f.url },
      env: { ...FAKE_AWS_ENV },
    }),
    urlEnv: (url) => ({ AWS_ENDPOINT_URL_BEDROCK_RUNTIME: url }),
    lastMessage: (b) => lastOf(b.messages),
  },
  {
    provider: 'genkit',
    start: () => startGeminiFake(),
    setup: async (f) => ({ entry: { id: 'gemini-2.5-flash', baseURL: f.url }, env: { GEMINI_API_KEY: 'e2e-gemini-key' } }),
    urlEnv: (url) => ({ GOOGLE_GEMINI_BASE_URL: url }),
    lastMessage: (b) => lastOf(b.contents),
  },
];

/** The case of `provider`. */
export function providerCase(provider: string): ProviderCase {
  const pc = PROVIDER_CASES.find((c) => c.provider === provider);
  if (!pc) throw new Error(`no provider case ${provider}`);
  return pc;
}

/**
 * Starts `pc`'s fake and an empty workspace for a spawned keen on the provider's default model:
 * `env` holds the credentials and the fake's address. Both are gone when the test finishes.
 */
export async function startProvider(pc: ProviderCase): Promise<{ fake: WindowedFake; ws: Workspace; env: Record<string, string> }> {
  const fake = await pc.start();
  onTestFinished(() => fake.close());
  const ws = tempWorkspace();
  const { env } = await pc.setup(fake, ws.home);
  return { fake, ws, env: { ...env, ...pc.urlEnv(fake.url) } };
}
