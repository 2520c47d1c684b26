/**
 * xAI leaves reasoning tokens out of `completion_tokens`. When a server sends no `total_tokens`
 * to tell, the host decides: a base URL at api.x.ai gets the reasoning counted as output. The
 * requests really go to `api.x.ai` (and to another name), tunnelled by a loopback proxy to the
 * Chat fake, so the adapter's host switch is what is tested.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { userMessage } from '../../src/core/message.js';
import { createOpenAIChatAdapter } from '../../src/providers/openai-chat.js';
import { startConnectProxy, type ConnectProxy } from '../fakes/connect-proxy.js';
import { startOpenAIChatFake } from '../fakes/openai-chat-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { only, turn } from '../kit/events.js';

let fake: ScriptedServer;
let proxy: ConnectProxy;

beforeAll(async () => {
  fake = await startOpenAIChatFake({ family: 'xai' });
  proxy = await startConnectProxy({ upstreamHost: '127.0.0.1' });
});

afterAll(async () => {
  await proxy.close();
  await fake.close();
});

async function outputAt(host: string): Promise<number[]> {
  const port = new URL(fake.url).port;
  const adapter = await createOpenAIChatAdapter({
    model: 'grok-4',
    apiKey: 'xai-test-key',
    baseURL: `http://${host}:${port}/v1`,
    maxRetries: 0,
    home: '/tmp/keen-test',
    env: { HTTP_PROXY: proxy.url },
  });
  fake.enqueue({ steps: [{ thinking: 'Hmm.' }, { text: 'ok' }], usage: { input: 120, output: 253, reasoning: 227, noTotal: true } });
  const conv = await adapter.open({ model: 'grok-4', messages: [userMessage('Go.')], tools: [], maxOutputTokens: 1024 });
  return only(await turn(conv), 'usage').map((e) => e.usage.output);
}

it('api.x.ai without a total: the reasoning tokens count as output, as xAI bills them', async () => {
  expect(await outputAt('api.x.ai')).toEqual([253]);
  expect(proxy.tunnels.at(-1)).toMatch(/^api\.x\.ai:\d+$/);
});

it('another host without a total: completion_tokens is the output', async () => {
  expect(await outputAt('chat.example.test')).toEqual([26]);
});
