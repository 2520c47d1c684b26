/**
 * Retry waits are events of the stream that waits, not of a process-wide listener: two
 * sessions (two adapters) in one process, and two conversations of one adapter (a turn and its
 * compaction fork share a client), each see exactly their own waits.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemMessage, userMessage } from '../../src/core/message.js';
import type { ModelTurnEvent, ProviderAdapter, ProviderConversation } from '../../src/core/provider.js';
import { createAnthropicAdapter } from '../../src/providers/anthropic.js';
import { createOpenAIChatAdapter } from '../../src/providers/openai-chat.js';
import { createOpenAIResponsesAdapter } from '../../src/providers/openai-responses.js';
import type { ProviderSettings } from '../../src/providers/types.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import { startOpenAIChatFake } from '../fakes/openai-chat-fake.js';
import { startOpenAIResponsesFake } from '../fakes/openai-responses-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { turn } from '../kit/events.js';

const PROVIDERS = [
  { name: 'anthropic', start: startAnthropicFake, create: createAnthropicAdapter, baseURL: (url: string) => url },
  { name: 'openai', start: startOpenAIChatFake, create: createOpenAIChatAdapter, baseURL: (url: string) => `${url}/v1` },
  { name: 'openai-responses', start: startOpenAIResponsesFake, create: createOpenAIResponsesAdapter, baseURL: (url: string) => `${url}/v1` },
];

let fakes: ScriptedServer[] = [];

beforeEach(() => {
  fakes = [];
});

afterEach(async () => {
  await Promise.all(fakes.map((f) => f.close()));
});

function open(adapter: ProviderAdapter): Promise<ProviderConversation> {
  return adapter.open({ model: 'test-model', messages: [systemMessage('You are Keen.'), userMessage('hi')], tools: [], maxOutputTokens: 1024 });
}

const waitsOf = (events: ModelTurnEvent[]) => events.flatMap((e) => (e.type === 'retry_wait' ? [e.wait] : []));

describe('retry_wait events', () => {
  for (const p of PROVIDERS) {
    it(`${p.name}: two sessions in one process each get their own waits`, async () => {
      const [a, b] = await Promise.all([p.start(), p.start()]);
      fakes.push(a, b);
      const settings = (fake: ScriptedServer): ProviderSettings => ({
        model: 'test-model',
        apiKey: 'sk-test',
        baseURL: p.baseURL(fake.url),
        maxRetries: 2,
        home: '/nonexistent',
        env: {},
      });
      // Session A is throttled twice, session B once.
      a.enqueue({ error: { status: 429, message: 'slow down' } }, { error: { status: 429, message: 'slow down' } }, { steps: [{ text: 'A' }] });
      b.enqueue({ error: { status: 429, message: 'slow down' } }, { steps: [{ text: 'B' }] });
      const [first, second] = await Promise.all([p.create(settings(a)), p.create(settings(b))]);
      const [eventsA, eventsB] = await Promise.all([open(first).then(turn), open(second).then(turn)]);
      expect(waitsOf(eventsA).map((w) => [w.host, w.status, w.retry, w.of])).toEqual([
        [new URL(a.url).host, 429, 1, 2],
        [new URL(a.url).host, 429, 2, 2],
      ]);
      expect(waitsOf(eventsB).map((w) => [w.host, w.status, w.retry, w.of])).toEqual([[new URL(b.url).host, 429, 1, 2]]);
      expect(eventsA.at(-1)).toMatchObject({ type: 'turn_end' });
      expect(eventsB.at(-1)).toMatchObject({ type: 'turn_end' });
    });

    it(`${p.name}: two conversations of one adapter each get their own waits`, async () => {
      const fake = await p.start();
      fakes.push(fake);
      fake.enqueue({ error: { status: 429, message: 'slow down' } }, { steps: [{ text: 'one' }] }, { steps: [{ text: 'two' }] });
      const adapter = await p.create({ model: 'test-model', apiKey: 'sk-test', baseURL: p.baseURL(fake.url), maxRetries: 2, home: '/nonexistent', env: {} });
      // Both at once on one client: whichever met the 429 has the one wait, the other none.
      const both = await Promise.all([open(adapter).then(turn), open(adapter).then(turn)]);
      expect(both.map((events) => waitsOf(events).length).sort()).toEqual([0, 1]);
      const throttled = both.find((events) => waitsOf(events).length === 1)!;
      // The wait comes before anything of the reply.
      expect(throttled[0].type).toBe('retry_wait');
      for (const events of both) expect(events.at(-1)).toMatchObject({ type: 'turn_end' });
    });
  }
});
