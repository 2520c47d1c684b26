/**
 * The OpenAI adapters' tests (Chat Completions and Responses) against their loopback fake: one
 * fake for the file, cleared before each test, and the settings and request they all start from.
 */
import { afterAll, beforeEach } from 'vitest';
import type { Message } from '../../src/core/message.js';
import type { ChatRequest } from '../../src/core/provider.js';
import type { ProviderSettings } from '../../src/providers/types.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';

export const TOOLS = [{ name: 'read_file', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }];

/** A request for `gpt-test` with {@link TOOLS}; by default a system prompt and "hi". */
export function request(
  messages: Message[] = [
    { role: 'system', content: 'You are Keen.' },
    { role: 'user', content: 'hi' },
  ],
): ChatRequest {
  return { model: 'gpt-test', messages, tools: TOOLS, maxOutputTokens: 1000 };
}

/** Starts the fake (`await` it at the top of the file); `settings` point an adapter at it, `lastBody` is what it was sent last. */
export async function openAIRig<F extends ScriptedServer>(start: () => Promise<F>) {
  const fake = await start();
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.requests.length = 0;
    fake.setResponder(undefined);
  });
  return {
    fake,
    settings: (over: Partial<ProviderSettings> = {}): ProviderSettings => ({
      model: 'gpt-test',
      apiKey: 'sk-test',
      baseURL: `${fake.url}/v1`,
      maxRetries: 2,
      home: '/nonexistent',
      env: {},
      ...over,
    }),
    lastBody: () => fake.requests[fake.requests.length - 1].body,
  };
}
