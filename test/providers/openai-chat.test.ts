import { describe, expect, it } from 'vitest';
import { KeenError } from '../../src/errors.js';
import type { ProviderConversation } from '../../src/core/provider.js';
import { createOpenAIChatAdapter, MISSING_OPENAI_KEY } from '../../src/providers/openai-chat.js';
import type { ProviderSettings } from '../../src/providers/types.js';
import { startOpenAIChatFake } from '../fakes/openai-chat-fake.js';
import { collect, turn, last, only, toolCallsOf } from '../kit/events.js';
import { forkSummary } from './fork-summary.js';
import { openAIRig, request, TOOLS } from './openai-rig.js';

const { fake, settings, lastBody } = await openAIRig(startOpenAIChatFake);

async function open(over: Partial<ProviderSettings> = {}, req = request()): Promise<ProviderConversation> {
  const adapter = await createOpenAIChatAdapter(settings(over));
  return adapter.open(req);
}

describe('openai chat adapter', () => {
  it('streams text and sends the system prompt, tools and include_usage', async () => {
    fake.enqueue({ steps: [{ text: 'Hel' }, { text: 'lo' }] });
    const conv = await open();
    const events = await turn(conv);
    expect(only(events, 'text_delta').map((e) => e.text)).toEqual(['Hel', 'lo']);
    expect(last(events)).toMatchObject({ type: 'turn_end', message: { role: 'assistant', content: 'Hello' }, stopReason: 'end_turn' });
    const body = lastBody();
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are Keen.' },
      { role: 'user', content: 'hi' },
    ]);
    expect(body.tools[0]).toEqual({ type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: TOOLS[0].input_schema } });
    expect(body.max_tokens).toBe(1000);
    expect(fake.requests[0].headers.authorization).toBe('Bearer sk-test');
  });

  it('assembles parallel tool calls from deltas and replays them with their results', async () => {
    fake.enqueue(
      {
        steps: [
          { text: 'Reading both.' },
          { toolCall: { id: 'call_a', name: 'read_file', args: { path: 'a.ts' } } },
          { toolCall: { id: 'call_b', name: 'read_file', args: { path: 'b.ts' } } },
        ],
      },
      { steps: [{ text: 'Done.' }] },
    );
    const conv = await open();
    const events = await turn(conv);
    const calls = toolCallsOf(events);
    expect(calls).toEqual([
      { id: 'call_a', name: 'read_file', args: '{"path":"a.ts"}' },
      { id: 'call_b', name: 'read_file', args: '{"path":"b.ts"}' },
    ]);
    const end = last(events);
    expect(end.type === 'turn_end' && end.stopReason).toBe('tool_use');
    conv.appendToolResults([
      { role: 'tool', tool_call_id: 'call_a', name: 'read_file', content: 'A' },
      { role: 'tool', tool_call_id: 'call_b', name: 'read_file', content: 'B' },
    ]);
    await turn(conv);
    expect(lastBody().messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: 'Reading both.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } },
          { id: 'call_b', type: 'function', function: { name: 'read_file', arguments: '{"path":"b.ts"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: 'A' },
      { role: 'tool', tool_call_id: 'call_b', content: 'B' },
    ]);
  });

  it('reports usage with cached tokens outside input', async () => {
    fake.enqueue({ steps: [{ text: 'ok' }], usage: { input: 60, output: 7, cacheRead: 40 } });
    const events = await turn(await open());
    expect(events.find((e) => e.type === 'usage')).toEqual({ type: 'usage', usage: { input: 60, output: 7, cache_read: 40, cache_write: 0 } });
  });

  it('streams reasoning_content and keeps it out of the next request', async () => {
    fake.enqueue({ steps: [{ thinking: 'Let me think.' }, { text: 'Answer' }] }, { steps: [{ text: 'again' }] });
    const conv = await open();
    const events = await turn(conv);
    expect(events.find((e) => e.type === 'reasoning_delta')).toEqual({ type: 'reasoning_delta', text: 'Let me think.' });
    const end = last(events);
    expect(end.type === 'turn_end' && end.message.reasoning).toEqual([{ provider: 'openai', text: 'Let me think.' }]);
    conv.appendUserText('more');
    await turn(conv);
    expect(lastBody().messages.slice(2)).toEqual([
      { role: 'assistant', content: 'Answer' },
      { role: 'user', content: 'more' },
    ]);
  });

  it('echoes streamed reasoning on a tool-call turn so DeepSeek-style tool loops keep it', async () => {
    fake.enqueue({ steps: [{ thinking: 'Need a file.' }, { toolCall: { id: 'call_r', name: 'read_file', args: {} } }] }, { steps: [{ text: 'ok' }] });
    const conv = await open();
    await turn(conv);
    conv.appendToolResults([{ role: 'tool', tool_call_id: 'call_r', name: 'read_file', content: 'R' }]);
    await turn(conv);
    expect(lastBody().messages[2]).toEqual({
      role: 'assistant',
      content: null,
      reasoning_content: 'Need a file.',
      tool_calls: [{ id: 'call_r', type: 'function', function: { name: 'read_file', arguments: '{}' } }],
    });
  });

  it('a fork plus appendUserText sends the parent request plus one final user message', async () => {
    fake.enqueue({ steps: [{ toolCall: { id: 'call_1', name: 'read_file', args: { path: 'x' } } }] });
    const conv = await open();
    await turn(conv);
    conv.appendToolResults([{ role: 'tool', tool_call_id: 'call_1', name: 'read_file', content: 'X' }]);
    const { childBody, parentBody } = await forkSummary(conv, fake, 'Summarise the conversation.');
    const { messages: childMessages, ...childRest } = childBody;
    const { messages: parentMessages, ...parentRest } = parentBody;
    expect(childRest).toEqual(parentRest);
    expect(childMessages).toEqual([...parentMessages, { role: 'user', content: 'Summarise the conversation.' }]);
  });

  it('replaceHistory rebuilds every message, system included, from the replacement', async () => {
    fake.enqueue({ steps: [{ text: 'first' }] }, { steps: [{ text: 'after' }] });
    const conv = await open();
    await turn(conv);
    conv.replaceHistory([
      { role: 'system', content: 'New system prompt.' },
      { role: 'user', content: '<compacted_context>S</compacted_context>' },
    ]);
    await turn(conv);
    expect(lastBody().messages).toEqual([
      { role: 'system', content: 'New system prompt.' },
      { role: 'user', content: '<compacted_context>S</compacted_context>' },
    ]);
  });

  it('maps a context-length error to context_window and leaves history unchanged', async () => {
    fake.enqueue({
      error: { status: 400, type: 'context_length_exceeded', message: "This model's maximum context length is 128000 tokens." },
    });
    const conv = await open();
    const events = await turn(conv);
    expect(events).toHaveLength(1);
    expect(last(events)).toMatchObject({ type: 'error', error: { kind: 'context_window', status: 400 } });
    fake.enqueue({ steps: [{ text: 'ok' }] });
    await turn(conv);
    expect(fake.requests[1].body).toEqual(fake.requests[0].body);
  });

  it('a redirect to another host is not followed and the error names where it pointed', async () => {
    fake.enqueue({ raw: { status: 308, contentType: 'text/plain', body: Buffer.from('moved'), headers: { location: 'https://other.example/v1/chat/completions' } } });
    const events = await turn(await open());
    expect(last(events)).toMatchObject({ type: 'error', error: { kind: 'other', status: 308 } });
    const e = last(events);
    expect(e.type === 'error' && e.error.message).toContain('redirected the request to https://other.example/v1/chat/completions, which Keen does not follow');
    expect(fake.requests).toHaveLength(1);
  });

  it('maps 401 to auth', async () => {
    fake.enqueue({ error: { status: 401, message: 'Incorrect API key provided.' } });
    const events = await turn(await open());
    expect(last(events)).toMatchObject({ type: 'error', error: { kind: 'auth', status: 401 } });
    const e = last(events);
    expect(e.type === 'error' && e.error.message).toContain('OPENAI_API_KEY');
  });

  it('retries a 429 and then succeeds', async () => {
    fake.enqueue({ error: { status: 429, message: 'Slow down.' } }, { steps: [{ text: 'made it' }] });
    const events = await turn(await open());
    expect(last(events)).toMatchObject({ type: 'turn_end', message: { content: 'made it' } });
    expect(fake.requests).toHaveLength(2);
  });

  it('reports rate_limit once the SDK retries are spent', async () => {
    fake.setResponder(() => ({ error: { status: 429, message: 'Slow down.' } }));
    const events = await turn(await open({ maxRetries: 1 }));
    expect(last(events)).toMatchObject({ type: 'error', error: { kind: 'rate_limit', status: 429 } });
    expect(fake.requests).toHaveLength(2);
  });

  it('reports a stream cut mid-reply as a network error', async () => {
    fake.enqueue({ steps: [{ text: 'partial' }, { cut: true }] });
    const conv = await open();
    const events = await turn(conv);
    expect(last(events)).toMatchObject({ type: 'error', error: { kind: 'network' } });
    expect(events.some((e) => e.type === 'turn_end')).toBe(false);
  });

  it('reports a server that is not listening as a network error', async () => {
    const events = await turn(await open({ baseURL: 'http://127.0.0.1:9/v1', maxRetries: 0 }));
    expect(last(events)).toMatchObject({ type: 'error', error: { kind: 'network' } });
    const e = last(events);
    expect(e.type === 'error' && e.error.message).toContain('http://127.0.0.1:9/v1');
  });

  it('reports an abort mid-stream as cancelled', async () => {
    fake.enqueue({ steps: [{ text: 'start' }, { hold: true }, { text: 'never' }] });
    const conv = await open();
    const ac = new AbortController();
    const events = await collect(conv.streamTurn(ac.signal), (ev) => {
      if (ev.type === 'text_delta') ac.abort();
    });
    expect(last(events)).toMatchObject({ type: 'error', error: { kind: 'cancelled' } });
  });

  it('refuses to start without a key or a base URL, naming the variable', async () => {
    await expect(createOpenAIChatAdapter(settings({ apiKey: undefined, baseURL: undefined }))).rejects.toThrow(new KeenError(MISSING_OPENAI_KEY));
  });

  it('talks to a local server with no key when a base URL is set', async () => {
    fake.enqueue({ steps: [{ text: 'local' }] });
    const events = await turn(await open({ apiKey: undefined, baseURL: undefined, env: { OPENAI_BASE_URL: `${fake.url}/v1` } }));
    expect(last(events)).toMatchObject({ type: 'turn_end', message: { content: 'local' } });
    expect(fake.requests[0].headers.authorization).toBe('Bearer keen-no-key');
  });
});
