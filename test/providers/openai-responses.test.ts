import { describe, expect, it } from 'vitest';
import { KeenError } from '../../src/errors.js';
import type { Message } from '../../src/core/message.js';
import type { ProviderConversation } from '../../src/core/provider.js';
import { createOpenAIResponsesAdapter } from '../../src/providers/openai-responses.js';
import { MISSING_OPENAI_KEY } from '../../src/providers/openai-sdk.js';
import type { ProviderSettings } from '../../src/providers/types.js';
import { startOpenAIResponsesFake } from '../fakes/openai-responses-fake.js';
import { collect, turn, last, only, toolCallsOf } from '../kit/events.js';
import { forkSummary } from './fork-summary.js';
import { openAIRig, request, TOOLS } from './openai-rig.js';

const { fake, settings, lastBody } = await openAIRig(startOpenAIResponsesFake);

async function open(over: Partial<ProviderSettings> = {}, req = request()): Promise<ProviderConversation> {
  return (await createOpenAIResponsesAdapter(settings(over))).open(req);
}

describe('openai responses adapter', () => {
  it('streams text with instructions, input, store:false and encrypted reasoning requested', async () => {
    fake.enqueue({ steps: [{ text: 'Hel' }, { text: 'lo' }] });
    const events = await turn(await open());
    expect(only(events, 'text_delta').map((e) => e.text)).toEqual(['Hel', 'lo']);
    expect(last(events)).toMatchObject({ type: 'turn_end', message: { role: 'assistant', content: 'Hello' }, stopReason: 'end_turn' });
    const body = lastBody();
    expect(fake.requests[0].path).toBe('/v1/responses');
    expect(body).toMatchObject({ stream: true, store: false, include: ['reasoning.encrypted_content'], instructions: 'You are Keen.', max_output_tokens: 1000 });
    expect(body.input).toEqual([{ type: 'message', role: 'user', content: 'hi' }]);
    expect(body.tools).toEqual([{ type: 'function', name: 'read_file', description: 'Read a file', parameters: TOOLS[0].input_schema, strict: false }]);
  });

  it('carries reasoning encrypted_content and function calls back in the next request', async () => {
    fake.enqueue(
      { steps: [{ thinking: 'Need the file.', signature: 'ENC-1' }, { toolCall: { id: 'call_1', name: 'read_file', args: { path: 'a.ts' } } }] },
      { steps: [{ text: 'It says A.' }] },
    );
    const conv = await open();
    const events = await turn(conv);
    expect(events.find((e) => e.type === 'reasoning_delta')).toEqual({ type: 'reasoning_delta', text: 'Need the file.' });
    expect(toolCallsOf(events)).toEqual([{ id: 'call_1', name: 'read_file', args: '{"path":"a.ts"}' }]);
    const end = last(events);
    expect(end.type === 'turn_end' && end.stopReason).toBe('tool_use');
    expect(end.type === 'turn_end' && end.message.reasoning).toEqual([{ provider: 'openai-responses', text: 'Need the file.', id: 'rs_fake0', encrypted_content: 'ENC-1' }]);
    expect(conv.hasPendingState()).toBe(true);
    conv.appendToolResults([{ role: 'tool', tool_call_id: 'call_1', name: 'read_file', content: 'A' }]);
    expect(conv.hasPendingState()).toBe(false);
    await turn(conv);
    expect(lastBody().input).toEqual([
      { type: 'message', role: 'user', content: 'hi' },
      { type: 'reasoning', id: 'rs_fake0', summary: [{ type: 'summary_text', text: 'Need the file.' }], encrypted_content: 'ENC-1' },
      { type: 'function_call', id: 'fc_fake1', call_id: 'call_1', name: 'read_file', arguments: '{"path":"a.ts"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'A' },
    ]);
  });

  it('rebuilds reasoning from a format-1 message when a conversation is reopened', async () => {
    // The fake verifies replayed encrypted reasoning, as the service does: let it issue 'E' first.
    fake.enqueue({ steps: [{ thinking: 'hm', signature: 'E' }, { toolCall: { id: 'c1', name: 'read_file', args: {} } }] });
    await turn(await open());
    fake.enqueue({ steps: [{ text: 'ok' }] });
    const history: Message[] = [
      { role: 'system', content: 'S' },
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c1', name: 'read_file', args: '{}' }],
        reasoning: [
          { provider: 'openai-responses', text: 'hm', id: 'rs_1', encrypted_content: 'E' },
          { provider: 'anthropic', text: 'not ours', signature: 'sig' },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', name: 'read_file', content: 'R' },
    ];
    await turn(await open({}, request(history)));
    expect(lastBody().input).toEqual([
      { type: 'message', role: 'user', content: 'go' },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'hm' }], encrypted_content: 'E' },
      { type: 'function_call', call_id: 'c1', name: 'read_file', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: 'R' },
    ]);
  });

  it('reports usage with cached tokens outside input', async () => {
    fake.enqueue({ steps: [{ text: 'ok' }], usage: { input: 300, output: 12, cacheRead: 700 } });
    const events = await turn(await open());
    expect(events.find((e) => e.type === 'usage')).toEqual({ type: 'usage', usage: { input: 300, output: 12, cache_read: 700, cache_write: 0 } });
  });

  it('reports max_tokens when the response is incomplete', async () => {
    fake.enqueue({ steps: [{ text: 'trunc' }], stopReason: 'max_tokens' });
    const events = await turn(await open());
    expect(last(events)).toMatchObject({ type: 'turn_end', stopReason: 'max_tokens', message: { content: 'trunc' } });
  });

  it('a fork plus appendUserText sends the parent request plus one final user message', async () => {
    fake.enqueue({ steps: [{ thinking: 'plan' }, { toolCall: { id: 'call_1', name: 'read_file', args: { path: 'x' } } }] });
    const conv = await open();
    await turn(conv);
    conv.appendToolResults([{ role: 'tool', tool_call_id: 'call_1', name: 'read_file', content: 'X' }]);
    const { childBody, parentBody } = await forkSummary(conv, fake, 'Summarise the conversation.');
    const { input: childInput, ...childRest } = childBody;
    const { input: parentInput, ...parentRest } = parentBody;
    expect(childRest).toEqual(parentRest);
    expect(childInput).toEqual([...parentInput, { type: 'message', role: 'user', content: 'Summarise the conversation.' }]);
  });

  it('replaceHistory rebuilds instructions and input from the replacement and clears pending state', async () => {
    fake.enqueue({ steps: [{ toolCall: { id: 'call_1', name: 'read_file', args: {} } }] }, { steps: [{ text: 'after' }] });
    const conv = await open();
    await turn(conv);
    expect(conv.hasPendingState()).toBe(true);
    conv.replaceHistory([
      { role: 'system', content: 'New system prompt.' },
      { role: 'user', content: '<compacted_context>S</compacted_context>' },
    ]);
    expect(conv.hasPendingState()).toBe(false);
    await turn(conv);
    expect(lastBody().instructions).toBe('New system prompt.');
    expect(lastBody().input).toEqual([{ type: 'message', role: 'user', content: '<compacted_context>S</compacted_context>' }]);
  });

  it('maps a context-length error to context_window and leaves history unchanged', async () => {
    fake.enqueue({ error: { status: 400, type: 'context_length_exceeded', message: 'Your input exceeds the context window of this model.' } });
    const conv = await open();
    const events = await turn(conv);
    expect(events).toEqual([expect.objectContaining({ type: 'error', error: expect.objectContaining({ kind: 'context_window' }) })]);
    fake.enqueue({ steps: [{ text: 'ok' }] });
    await turn(conv);
    expect(fake.requests[1].body).toEqual(fake.requests[0].body);
  });

  it('maps 401 to auth', async () => {
    fake.enqueue({ error: { status: 401, message: 'Incorrect API key provided.' } });
    expect(last(await turn(await open()))).toMatchObject({ type: 'error', error: { kind: 'auth', status: 401 } });
  });

  it('retries a 429 and then succeeds', async () => {
    fake.enqueue({ error: { status: 429, message: 'Slow down.' } }, { steps: [{ text: 'made it' }] });
    expect(last(await turn(await open()))).toMatchObject({ type: 'turn_end', message: { content: 'made it' } });
    expect(fake.requests).toHaveLength(2);
  });

  it('reports rate_limit once the SDK retries are spent', async () => {
    fake.setResponder(() => ({ error: { status: 429, message: 'Slow down.' } }));
    expect(last(await turn(await open({ maxRetries: 0 })))).toMatchObject({ type: 'error', error: { kind: 'rate_limit' } });
    expect(fake.requests).toHaveLength(1);
  });

  it('reports a stream cut mid-reply as a network error and appends nothing', async () => {
    fake.enqueue({ steps: [{ text: 'partial' }, { cut: true }], usage: { input: 1, output: 1 } });
    const conv = await open();
    const events = await turn(conv);
    expect(last(events)).toMatchObject({ type: 'error', error: { kind: 'network' } });
    fake.enqueue({ steps: [{ text: 'ok' }] });
    await turn(conv);
    expect(fake.requests[1].body).toEqual(fake.requests[0].body);
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
    await expect(createOpenAIResponsesAdapter(settings({ apiKey: undefined, baseURL: undefined }))).rejects.toThrow(new KeenError(MISSING_OPENAI_KEY));
  });
});
