/**
 * The fakes refuse a replay the real services refuse, so an adapter that loses reasoning on the
 * way back fails against them. Each case: the fake issues reasoning, then a request that drops or
 * reorders it is answered 400 with the service's wording.
 */
import { describe, expect, it } from 'vitest';
import { startAnthropicFake } from './anthropic-fake.js';
import { startGeminiFake } from './gemini-fake.js';
import { startOpenAIChatFake } from './openai-chat-fake.js';
import { startOpenAIResponsesFake } from './openai-responses-fake.js';
import type { FakeReply } from './script.js';
import type { ScriptedServer } from './scripted-server.js';

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

async function withFake(start: () => Promise<ScriptedServer>, reply: FakeReply, run: (fake: ScriptedServer) => Promise<void>): Promise<void> {
  const fake = await start();
  try {
    fake.enqueue(reply);
    await run(fake);
  } finally {
    await fake.close();
  }
}

describe('fakes refuse replays the services refuse', () => {
  it('chat (DeepSeek thinking mode): a tool-call message without its reasoning_content', async () => {
    await withFake(startOpenAIChatFake, { steps: [{ thinking: 'plan' }, { toolCall: { id: 'c1', name: 'read_file', args: {} } }] }, async (fake) => {
      const url = `${fake.url}/v1/chat/completions`;
      expect((await post(url, { model: 'm', stream: true, messages: [{ role: 'user', content: 'go' }] })).status).toBe(200);
      const call = { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } };
      const history = (extra: object) => [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: null, tool_calls: [call], ...extra },
        { role: 'tool', tool_call_id: 'c1', content: 'x' },
      ];
      const refused = await post(url, { model: 'm', stream: true, messages: history({}) });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('Missing `reasoning_content` field in the assistant message at message index 1');
      fake.enqueue({ steps: [{ text: 'ok' }] });
      expect((await post(url, { model: 'm', stream: true, messages: history({ reasoning_content: 'plan' }) })).status).toBe(200);
    });
  });

  it('chat (DeepSeek thinking mode): the final answer of a tool-using turn without its reasoning_content', async () => {
    const start = () => startOpenAIChatFake({ family: 'deepseek' });
    await withFake(start, { steps: [{ thinking: 'plan' }, { toolCall: { id: 'c1', name: 'read_file', args: {} } }] }, async (fake) => {
      const url = `${fake.url}/v1/chat/completions`;
      const call = { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } };
      const toolTurn = [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: null, tool_calls: [call], reasoning_content: 'plan' },
        { role: 'tool', tool_call_id: 'c1', content: 'x' },
      ];
      expect((await post(url, { model: 'm', stream: true, messages: toolTurn.slice(0, 1) })).status).toBe(200);
      fake.enqueue({ steps: [{ thinking: 'done' }, { text: 'It is x.' }] });
      expect((await post(url, { model: 'm', stream: true, messages: toolTurn })).status).toBe(200);
      const next = (extra: object) => [...toolTurn, { role: 'assistant', content: 'It is x.', ...extra }, { role: 'user', content: 'next' }];
      const refused = await post(url, { model: 'm', stream: true, messages: next({}) });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('Missing `reasoning_content` field in the assistant message at message index 3');
      fake.enqueue({ steps: [{ text: 'ok' }] });
      expect((await post(url, { model: 'm', stream: true, messages: next({ reasoning_content: 'done' }) })).status).toBe(200);
    });
  });

  it('anthropic (thinking on): a tool-use turn replayed without the thinking block it began with; a budget not below max_tokens', async () => {
    await withFake(startAnthropicFake, { steps: [{ thinking: 'plan', signature: 'sig-t' }, { toolCall: { id: 'toolu_1', name: 'read_file', args: {} } }] }, async (fake) => {
      const url = `${fake.url}/v1/messages`;
      const headers = { 'x-api-key': 'k' };
      const thinking = { type: 'enabled', budget_tokens: 2048 };
      expect((await post(url, { model: 'm', max_tokens: 4096, thinking, messages: [{ role: 'user', content: 'go' }] }, headers)).status).toBe(200);
      const call = { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: {} };
      const replay = (content: object[], extra: object = {}) => ({
        model: 'm',
        max_tokens: 4096,
        thinking,
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' }] },
        ],
        ...extra,
      });
      const dropped = await post(url, replay([call]), headers);
      expect(dropped.status).toBe(400);
      expect(dropped.text).toContain('a final `assistant` message must start with a thinking block');
      const tight = await post(url, replay([{ type: 'thinking', thinking: 'plan', signature: 'sig-t' }, call], { max_tokens: 2048 }), headers);
      expect(tight.status).toBe(400);
      expect(tight.text).toContain('`max_tokens` must be greater than `thinking.budget_tokens`');
      fake.enqueue({ steps: [{ text: 'ok' }] });
      expect((await post(url, replay([{ type: 'thinking', thinking: 'plan', signature: 'sig-t' }, call]), headers)).status).toBe(200);
    });
  });

  it('anthropic: a thinking block whose signature was not issued for that text', async () => {
    await withFake(startAnthropicFake, { steps: [{ thinking: 'plan', signature: 'sig-1' }, { text: 'hi' }] }, async (fake) => {
      const url = `${fake.url}/v1/messages`;
      const headers = { 'x-api-key': 'k' };
      expect((await post(url, { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'go' }] }, headers)).status).toBe(200);
      const replay = (thinking: string) => ({
        model: 'm',
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'go' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking, signature: 'sig-1' },
              { type: 'text', text: 'hi' },
            ],
          },
          { role: 'user', content: 'more' },
        ],
      });
      const refused = await post(url, replay('plan, edited'), headers);
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('Invalid `signature` in `thinking` block');
    });
  });

  it('responses: a reasoning item moved away from the item it led to', async () => {
    const reply: FakeReply = { steps: [{ thinking: 'plan', signature: 'ENC' }, { toolCall: { id: 'c1', name: 'read_file', args: {} } }] };
    await withFake(startOpenAIResponsesFake, reply, async (fake) => {
      const url = `${fake.url}/v1/responses`;
      expect((await post(url, { model: 'm', stream: true, input: [{ type: 'message', role: 'user', content: 'go' }] })).status).toBe(200);
      const reasoning = { type: 'reasoning', id: 'rs_fake0', summary: [{ type: 'summary_text', text: 'plan' }], encrypted_content: 'ENC' };
      const call = { type: 'function_call', call_id: 'c1', name: 'read_file', arguments: '{}' };
      const refused = await post(url, {
        model: 'm',
        stream: true,
        input: [{ type: 'message', role: 'user', content: 'go' }, call, reasoning, { type: 'function_call_output', call_id: 'c1', output: 'x' }],
      });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain("of type 'reasoning' was provided without its required following item");
    });
  });

  it('gemini: a function call sent back without its thoughtSignature', async () => {
    await withFake(startGeminiFake, { steps: [{ thinking: 'plan', signature: 'ts-1' }, { toolCall: { name: 'read_file', args: { path: 'a' } } }] }, async (fake) => {
      const url = `${fake.url}/v1beta/models/gemini-x:streamGenerateContent?alt=sse`;
      const headers = { 'x-goog-api-key': 'k' };
      const first = await post(url, { contents: [{ role: 'user', parts: [{ text: 'go' }] }] }, headers);
      expect(first.text).toContain('"thoughtSignature":"ts-1"');
      const contents = (signature: object) => [
        { role: 'user', parts: [{ text: 'go' }] },
        {
          role: 'model',
          parts: [
            { text: 'plan', thought: true },
            { functionCall: { name: 'read_file', args: { path: 'a' } }, ...signature },
          ],
        },
        { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: { output: 'x' } } }] },
      ];
      const refused = await post(url, { contents: contents({}) }, headers);
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('Function call is missing a thought_signature');
      fake.enqueue({ steps: [{ text: 'ok' }] });
      expect((await post(url, { contents: contents({ thoughtSignature: 'ts-1' }) }, headers)).status).toBe(200);
    });
  });
});
