import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userMessage } from '../../src/core/message.js';
import { createAnthropicAdapter } from '../../src/providers/anthropic.js';
import { createMessagesClient } from '../../src/providers/anthropic-sdk.js';
import { LibraryWarnings } from '../../src/providers/kit/library-warnings.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { last, turn } from '../kit/events.js';
import { expectSilentStderr } from '../kit/silent-stderr.js';

// Nothing the SDK warns may reach the console raw.
expectSilentStderr();

describe('LibraryWarnings', () => {
  it("a library's console.warn during its call becomes one line, once per text", () => {
    const lines: string[] = [];
    const warnings = new LibraryWarnings('Anthropic', (l) => lines.push(l));
    const before = console.warn;
    for (let i = 0; i < 3; i++) {
      expect(warnings.during(() => (console.warn("The model 'm' is deprecated\nPlease migrate."), i))).toBe(i);
    }
    warnings.during(() => console.warn('Another %s', 'thing'));
    expect(lines).toEqual(["Anthropic: The model 'm' is deprecated Please migrate.", 'Anthropic: Another thing']);
    expect(console.warn).toBe(before);
  });

  it('console is itself again when the call throws, and without a sink nothing is shown', () => {
    const before = console.warn;
    const warnings = new LibraryWarnings('Anthropic', undefined);
    expect(() =>
      warnings.during(() => {
        console.warn('dropped');
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(console.warn).toBe(before);
  });
});

describe("the Anthropic SDK's thinking.type=enabled deprecation", () => {
  let fake: ScriptedServer;
  beforeAll(async () => {
    fake = await startAnthropicFake();
  });
  afterAll(() => fake.close());

  const budgetForm = {
    model: 'claude-opus-4-6',
    max_tokens: 4096,
    thinking: { type: 'enabled' as const, budget_tokens: 2048 },
    messages: [{ role: 'user' as const, content: 'hi' }],
    stream: true as const,
  };

  it('the real SDK warns for the budget form on claude-opus-4-6: one Anthropic line for the session, nothing raw', async () => {
    const messages = createMessagesClient({ apiKey: 'sk-ant-test', baseURL: fake.url, maxRetries: 0 });
    const lines: string[] = [];
    const warnings = new LibraryWarnings('Anthropic', (l) => lines.push(l));
    fake.enqueue({ steps: [{ text: 'One.' }] }, { steps: [{ text: 'Two.' }] });
    for (let i = 0; i < 2; i++) {
      const stream = await warnings.during(() => messages.create(budgetForm));
      for await (const _ of stream);
    }
    expect(fake.requests).toHaveLength(2);
    expect(lines).toEqual([
      "Anthropic: Using Claude with claude-opus-4-6 and 'thinking.type=enabled' is deprecated. Use 'thinking.type=adaptive' instead which results in better model performance in our testing: https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking",
    ]);
  });

  it("Keen's own request on claude-opus-4-6 sends the adaptive form, so the SDK has nothing to warn", async () => {
    const lines: string[] = [];
    const adapter = await createAnthropicAdapter({
      model: 'claude-opus-4-6',
      apiKey: 'sk-ant-test',
      baseURL: fake.url,
      maxRetries: 0,
      home: '/tmp/keen-test',
      env: {},
      onWarning: (l) => lines.push(l),
    });
    fake.enqueue({ steps: [{ text: 'Adaptive.' }] });
    const conv = await adapter.open({ model: 'claude-opus-4-6', messages: [userMessage('hi')], tools: [], maxOutputTokens: 8192, thinkingBudget: 4096 });
    expect(last(await turn(conv))).toMatchObject({ type: 'turn_end' });
    expect(fake.requests.at(-1)?.body.thinking).toEqual({ type: 'adaptive' });
    expect(lines).toEqual([]);
  });
});
