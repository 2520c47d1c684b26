import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeenError } from '../../src/errors.js';
import { systemMessage, userMessage, type Message, type ToolMessage } from '../../src/core/message.js';
import type { ChatRequest, ModelTurnEvent } from '../../src/core/provider.js';
import { createAnthropicAdapter } from '../../src/providers/anthropic.js';
import { mapAnthropicError } from '../../src/providers/anthropic-errors.js';
import type { ProviderSettings } from '../../src/providers/types.js';
import { FAKE_RETRY_AFTER_MS, startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { turn, only, last } from '../kit/events.js';

let fake: ScriptedServer;

beforeEach(async () => {
  fake = await startAnthropicFake();
});

afterEach(async () => {
  await fake.close();
});

function settings(over: Partial<ProviderSettings> = {}): ProviderSettings {
  return { model: 'claude-test', apiKey: 'sk-ant-test', baseURL: fake.url, maxRetries: 2, home: '/tmp/keen-test', env: {}, ...over };
}

const TOOLS = [
  { name: 'read_file', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } },
  { name: 'grep', description: 'Search files', input_schema: { type: 'object', properties: { pattern: { type: 'string' } } } },
];

function request(messages: Message[], over: Partial<ChatRequest> = {}): ChatRequest {
  return { model: 'claude-test', messages, tools: TOOLS, maxOutputTokens: 4096, ...over };
}

async function open(messages: Message[] = [systemMessage('You are Keen.'), userMessage('hi')], over: Partial<ChatRequest> = {}, s = settings()) {
  const adapter = await createAnthropicAdapter(s);
  return adapter.open(request(messages, over));
}

/** The request body as JSON with every cache_control marker removed. */
function withoutCacheControl(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key, v) => (key === 'cache_control' ? undefined : v));
}

function breakpoints(body: unknown): string[] {
  const found: string[] = [];
  const walk = (v: unknown, path: string) => {
    if (Array.isArray(v)) for (const [i, x] of v.entries()) walk(x, `${path}[${i}]`);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'cache_control') found.push(path);
        else walk(x, `${path}.${k}`);
      }
    }
  };
  walk(body, '');
  return found;
}

const readResult = (id: string, content: string, is_error?: boolean): ToolMessage => ({
  role: 'tool',
  tool_call_id: id,
  name: 'read_file',
  content,
  ...(is_error ? { is_error } : {}),
});

describe('anthropic adapter: streaming', () => {
  it('streams text deltas and ends with the assistant message and usage including cache fields', async () => {
    fake.enqueue({ steps: [{ text: 'Hello there, world' }], usage: { input: 12, output: 7, cacheRead: 900, cacheWrite: 40 } });
    const conv = await open();
    const events = await turn(conv);

    const deltas = only(events, 'text_delta').map((e) => e.text);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Hello there, world');
    expect(only(events, 'usage')).toEqual([{ type: 'usage', usage: { input: 12, output: 7, cache_read: 900, cache_write: 40 } }]);
    expect(last(events)).toMatchObject({
      type: 'turn_end',
      message: { role: 'assistant', content: 'Hello there, world', parts: [{ type: 'text', text: 'Hello there, world' }], provider: 'anthropic' },
      stopReason: 'end_turn',
    });

    const sent = fake.requests[0];
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers.authorization).toBe('Bearer sk-ant-test');
    expect(sent.body).toMatchObject({ model: 'claude-test', max_tokens: 4096, stream: true });
    expect(sent.body.system).toEqual([{ type: 'text', text: 'You are Keen.', cache_control: { type: 'ephemeral' } }]);
    expect(sent.body.thinking).toBeUndefined();
  });

  it('assembles a tool call from partial JSON and sends the tool results back as one user turn', async () => {
    const args = { path: 'src/app.ts', lines: [1, 20], note: 'quotes " and unicode é' };
    fake.enqueue(
      { steps: [{ text: 'Let me look.' }, { toolCall: { id: 'toolu_1', name: 'read_file', args } }, { toolCall: { id: 'toolu_2', name: 'read_file', args: { path: 'b' } } }] },
      { steps: [{ text: 'Done.' }] },
    );
    const conv = await open();
    const first = await turn(conv);

    const calls = (last(first) as Extract<ModelTurnEvent, { type: 'turn_end' }>).message.tool_calls ?? [];
    expect(calls.map((c) => c.id)).toEqual(['toolu_1', 'toolu_2']);
    expect(JSON.parse(calls[0].args)).toEqual(args);
    const end = last(first);
    expect(end).toMatchObject({ type: 'turn_end', stopReason: 'tool_use', message: { content: 'Let me look.', tool_calls: calls } });

    conv.appendToolResults([readResult('toolu_1', 'export const app = 1;'), readResult('toolu_2', 'ENOENT: no such file', true)]);
    expect(last(await turn(conv))).toMatchObject({ type: 'turn_end', message: { content: 'Done.' } });

    const messages = withoutCacheControl(fake.requests[1].body.messages);
    expect(messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: args },
          { type: 'tool_use', id: 'toolu_2', name: 'read_file', input: { path: 'b' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'export const app = 1;' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'ENOENT: no such file', is_error: true },
        ],
      },
    ]);
  });

  it('sends extended thinking and replays the thinking block with its signature in the next request', async () => {
    fake.enqueue(
      { steps: [{ thinking: 'The user wants the file; read it first.', signature: 'sig-abc123' }, { toolCall: { id: 'toolu_t', name: 'read_file', args: { path: 'a' } } }] },
      { steps: [{ text: 'ok' }] },
    );
    const conv = await open(undefined, { thinkingBudget: 2048 });
    const events = await turn(conv);

    expect(fake.requests[0].body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(
      only(events, 'reasoning_delta')
        .map((e) => e.text)
        .join(''),
    ).toBe('The user wants the file; read it first.');
    expect(last(events)).toMatchObject({
      type: 'turn_end',
      message: { reasoning: [{ provider: 'anthropic', text: 'The user wants the file; read it first.', signature: 'sig-abc123' }] },
    });

    conv.appendToolResults([readResult('toolu_t', 'contents')]);
    await turn(conv);
    const assistant = fake.requests[1].body.messages[1];
    expect(assistant.content[0]).toEqual({ type: 'thinking', thinking: 'The user wants the file; read it first.', signature: 'sig-abc123' });
    expect(assistant.content[1]).toMatchObject({ type: 'tool_use', id: 'toolu_t' });
  });
});

describe('anthropic adapter: prompt caching', () => {
  it('marks the last system block, the last tool and the newest message, moving the message mark forward', async () => {
    fake.enqueue({ steps: [{ toolCall: { id: 'toolu_c', name: 'grep', args: { pattern: 'x' } } }] }, { steps: [{ text: 'fine' }] });
    const conv = await open([systemMessage('base rules'), systemMessage('project notes'), userMessage('find x')]);
    await turn(conv);
    conv.appendToolResults([readResult('toolu_c', 'a.ts:1:x')]);
    await turn(conv);

    for (const { body } of fake.requests) {
      const marks = breakpoints(body);
      expect(marks.length).toBeLessThanOrEqual(4);
      expect(marks).toContain(`.system[${body.system.length - 1}]`);
      expect(marks).toContain(`.tools[${body.tools.length - 1}]`);
      const m = body.messages.length - 1;
      expect(marks).toContain(`.messages[${m}].content[${body.messages[m].content.length - 1}]`);
      expect(marks).toHaveLength(3);
    }
    // The first request's mark on "find x" is gone from the second request.
    expect(fake.requests[1].body.messages[0].content[0].cache_control).toBeUndefined();
  });

  it('a fork plus appendUserText sends the parent request plus exactly one final user message', async () => {
    fake.enqueue(
      { steps: [{ toolCall: { id: 'toolu_f', name: 'read_file', args: { path: 'x' } } }] },
      { steps: [{ text: '## Summary\nall done' }] },
      { steps: [{ text: 'parent continues' }] },
    );
    const conv = await open();
    await turn(conv);
    conv.appendToolResults([readResult('toolu_f', 'x contents')]);

    const child = conv.fork();
    child.appendUserText('Summarise the conversation so far.');
    expect(last(await turn(child))).toMatchObject({ type: 'turn_end', message: { content: '## Summary\nall done' } });
    expect(last(await turn(conv))).toMatchObject({ type: 'turn_end', message: { content: 'parent continues' } });

    const nested = fake.requests[1].body;
    const parent = fake.requests[2].body;
    const { messages: nestedMessages, ...nestedRest } = nested;
    const { messages: parentMessages, ...parentRest } = parent;
    expect(JSON.stringify(nestedRest)).toBe(JSON.stringify(parentRest));
    expect(nestedMessages).toHaveLength(parentMessages.length + 1);
    expect(JSON.stringify(withoutCacheControl(nestedMessages.slice(0, -1)))).toBe(JSON.stringify(withoutCacheControl(parentMessages)));
    // The breakpoint stays on the parent's newest block: the instruction after it is never cached.
    expect(nestedMessages.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'Summarise the conversation so far.' }] });
    const tail = parentMessages.length - 1;
    expect(breakpoints(nested)).toContain(`.messages[${tail}].content[${parentMessages[tail].content.length - 1}]`);
    expect(breakpoints(nested)).toHaveLength(3);
    // The fork's reply never reached the parent's history.
    expect(JSON.stringify(parentMessages)).not.toContain('Summary');
  });

  it('a request with promptCache false (the budgeted document) carries no breakpoint', async () => {
    fake.enqueue({ steps: [{ text: '## Summary' }] });
    const conv = await open([systemMessage('Summarise.'), userMessage('<document>…</document>')], { promptCache: false });
    await turn(conv);
    expect(breakpoints(fake.requests[0].body)).toEqual([]);
    expect(fake.requests[0].body.system).toEqual([{ type: 'text', text: 'Summarise.' }]);
  });

  it('replaceHistory keeps the system blocks and tools and rebuilds the messages', async () => {
    fake.enqueue({ steps: [{ text: 'one' }] }, { steps: [{ text: 'two' }] });
    const conv = await open([systemMessage('original system'), userMessage('long history')]);
    await turn(conv);
    conv.replaceHistory([systemMessage('a newer system prompt'), userMessage('Summary of earlier work')]);
    await turn(conv);

    const body = fake.requests[1].body;
    expect(withoutCacheControl(body.system)).toEqual([{ type: 'text', text: 'original system' }]);
    expect(body.tools.map((t: { name: string }) => t.name)).toEqual(['read_file', 'grep']);
    expect(withoutCacheControl(body.messages)).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Summary of earlier work' }] }]);
  });
});

describe('anthropic adapter: history conversion', () => {
  it('converts generic history: merged tool results, bad args sent as {}, Anthropic reasoning only', async () => {
    fake.enqueue({ steps: [{ text: 'ok' }] });
    const history: Message[] = [
      systemMessage('sys'),
      userMessage('go'),
      {
        role: 'assistant',
        content: '',
        reasoning: [
          { provider: 'anthropic', text: 'think', signature: 'sig-1' },
          { provider: 'anthropic', text: '', redacted: true, encrypted_content: 'opaque' },
          { provider: 'openai-responses', text: 'not ours', encrypted_content: 'x' },
        ],
        tool_calls: [
          { id: 't1', name: 'grep', args: '{"pattern": "a"' },
          { id: 't2', name: 'grep', args: '{"pattern":"b"}' },
        ],
      },
      { role: 'tool', tool_call_id: 't1', name: 'grep', content: 'oops', is_error: true },
      { role: 'tool', tool_call_id: 't2', name: 'grep', content: '' },
      userMessage('and now?'),
    ];
    await turn(await open(history));

    expect(withoutCacheControl(fake.requests[0].body.messages)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'think', signature: 'sig-1' },
          { type: 'redacted_thinking', data: 'opaque' },
          { type: 'tool_use', id: 't1', name: 'grep', input: {} },
          { type: 'tool_use', id: 't2', name: 'grep', input: { pattern: 'b' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'oops', is_error: true },
          { type: 'tool_result', tool_use_id: 't2' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'and now?' }] },
    ]);
  });
});

describe('anthropic adapter: errors', () => {
  it('maps 400 "prompt is too long" to context_window and leaves history unchanged', async () => {
    fake.enqueue({ error: { status: 400, message: 'prompt is too long: 212000 tokens > 200000 maximum' } }, { steps: [{ text: 'ok' }] });
    const conv = await open();
    const events = await turn(conv);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'error', error: { kind: 'context_window', status: 400 } });
    expect((events[0] as { error: { message: string } }).error.message).toContain('prompt is too long');

    await turn(conv);
    expect(fake.requests[1].body.messages).toEqual(fake.requests[0].body.messages);
  });

  it('a redirect to another host is not followed (the key stays here) and the error names where it pointed', async () => {
    fake.enqueue({ raw: { status: 301, contentType: 'text/html', body: Buffer.from(''), headers: { location: 'https://api.elsewhere.example/v1/messages' } } });
    const events = await turn(await open());
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'error', error: { kind: 'other', status: 301 } });
    expect((events[0] as { error: { message: string } }).error.message).toMatch(
      /^Anthropic at 127\.0\.0\.1:\d+ redirected the request to https:\/\/api\.elsewhere\.example\/v1\/messages, which Keen does not follow \(the API key would go to another host\); if that server is the right one, point the base URL at it \(ANTHROPIC_BASE_URL\)\.$/,
    );
    expect(fake.requests).toHaveLength(1);
  });

  it('maps 401 to auth and tells the user to check ANTHROPIC_API_KEY', async () => {
    fake.enqueue({ error: { status: 401, message: 'invalid x-api-key' } });
    const events = await turn(await open());
    expect(events).toEqual([
      {
        type: 'error',
        error: { kind: 'auth', status: 401, message: 'Anthropic rejected the request (401 authentication_error: invalid x-api-key); check ANTHROPIC_API_KEY.' },
      },
    ]);
  });

  it('retries a 429 after the retry-after-ms delay and then succeeds', async () => {
    fake.enqueue({ error: { status: 429, message: 'rate limited' } }, { steps: [{ text: 'after the wait' }] });
    const events = await turn(await open());
    // The wait announced is the one waited: retry-after-ms, not the coarser retry-after (1 s).
    expect(only(events, 'retry_wait')).toEqual([{ type: 'retry_wait', wait: { host: new URL(fake.url).host, status: 429, waitMs: FAKE_RETRY_AFTER_MS, retry: 1, of: 2 } }]);
    expect(last(events)).toMatchObject({ type: 'turn_end', message: { content: 'after the wait' } });
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1].headers['x-stainless-retry-count']).toBe('1');
  });

  it('reports rate_limit once the retries are used up, and overloaded (529) as rate_limit', async () => {
    fake.enqueue({ error: { status: 429, message: 'slow down' } }, { error: { status: 429, message: 'slow down' } });
    const events = await turn(await open(undefined, {}, settings({ maxRetries: 1 })));
    expect(events).toMatchObject([
      { type: 'retry_wait', wait: { status: 429, retry: 1, of: 1 } },
      { type: 'error', error: { kind: 'rate_limit', status: 429 } },
    ]);
    expect(fake.requests).toHaveLength(2);

    fake.enqueue({ error: { status: 529, message: 'Overloaded' } });
    const overloaded = await turn(await open(undefined, {}, settings({ maxRetries: 0 })));
    expect(overloaded).toMatchObject([{ type: 'error', error: { kind: 'rate_limit', status: 529 } }]);
  });

  it('reports a stream cut mid-reply as a network error and keeps the history unchanged', async () => {
    fake.enqueue({ steps: [{ text: 'partial answer' }, { cut: true }] }, { steps: [{ text: 'second try' }] });
    const conv = await open();
    const events = await turn(conv);
    const error = last(events);
    expect(error.type).toBe('error');
    if (error.type !== 'error') return;
    expect(error.error.kind).toBe('network');
    expect(error.error.message).toMatch(/Anthropic/);
    expect(error.error.message).toMatch(/mid-reply|ended before the reply was complete/);
    expect(only(events, 'turn_end')).toHaveLength(0);

    await turn(conv);
    expect(fake.requests[1].body.messages).toEqual(fake.requests[0].body.messages);
  });

  it('reports cancelled when the signal fires mid-stream, without waiting for the server', async () => {
    // The server stalls until the client hangs up: the turn ends at all only if the abort ends it.
    fake.enqueue({ steps: [{ text: 'first words' }, { hold: true }, { text: 'never seen' }] });
    const conv = await open();
    const controller = new AbortController();
    const events: ModelTurnEvent[] = [];
    for await (const e of conv.streamTurn(controller.signal)) {
      events.push(e);
      if (e.type === 'text_delta') controller.abort();
    }
    expect(last(events)).toEqual({ type: 'error', error: { kind: 'cancelled', message: 'Request cancelled.' } });
    expect(events.map((e) => e.type)).not.toContain('turn_end');
  });

  it('reports cancelled when the signal has fired before the request', async () => {
    const controller = new AbortController();
    controller.abort();
    const events = await turn(await open(), controller.signal);
    expect(events).toMatchObject([{ type: 'error', error: { kind: 'cancelled' } }]);
    expect(fake.requests).toHaveLength(0);
  });

  it('reports an unreachable server as a network error naming the host', async () => {
    const url = fake.url;
    await fake.close();
    const events = await turn(await open(undefined, {}, settings({ baseURL: url, maxRetries: 0 })));
    fake = await startAnthropicFake();
    expect(events).toMatchObject([{ type: 'error', error: { kind: 'network' } }]);
    expect((events[0] as { error: { message: string } }).error.message).toContain(new URL(url).host);
  });

  it('maps an overloaded error event sent inside a 200 stream to rate_limit', async () => {
    // The SDK's stream reader throws exactly this for `event: error` (no HTTP status).
    const sdk = await import('@anthropic-ai/sdk');
    const body = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
    const err = new sdk.APIError(undefined, body, undefined, new Headers(), 'overloaded_error');
    expect(mapAnthropicError(err, { baseURL: 'https://api.anthropic.com' })).toEqual({
      kind: 'rate_limit',
      message: 'Anthropic stopped the reply (overloaded_error: Overloaded); retry shortly.',
    });
  });
});

describe('anthropic adapter: configuration', () => {
  it('refuses to start without a key, naming ANTHROPIC_API_KEY and --provider', async () => {
    const attempt = createAnthropicAdapter(settings({ apiKey: undefined, env: {} }));
    await expect(attempt).rejects.toBeInstanceOf(KeenError);
    await expect(attempt).rejects.toThrow('ANTHROPIC_API_KEY is not set. Export it, or pick another provider with --provider.');
  });

  it('reads the key and base URL from the environment when settings leave them out', async () => {
    fake.enqueue({ steps: [{ text: 'from env' }] });
    const s = settings({ apiKey: undefined, baseURL: undefined, env: { ANTHROPIC_API_KEY: 'sk-from-env', ANTHROPIC_BASE_URL: fake.url } });
    const events = await turn(await open(undefined, {}, s));
    expect(last(events)).toMatchObject({ type: 'turn_end', message: { content: 'from env' } });
    expect(fake.requests[0].headers.authorization).toBe('Bearer sk-from-env');
  });
});

describe('anthropic fake', () => {
  it('speaks SSE with partial JSON chunks, and accepts x-api-key but not a missing key', async () => {
    fake.enqueue({ steps: [{ toolCall: { name: 'grep', args: { pattern: 'a long enough pattern' } } }] });
    const body = JSON.stringify({ model: 'm', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const ok = await fetch(`${fake.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': 'k', 'content-type': 'application/json' }, body });
    const text = await ok.text();
    expect(ok.headers.get('content-type')).toContain('text/event-stream');
    expect(text.match(/"input_json_delta"/g)?.length).toBeGreaterThanOrEqual(4);
    expect(text).toContain('"cache_read_input_tokens"');
    expect(text.trim().endsWith('data: {"type":"message_stop"}')).toBe(true);

    fake.enqueue({ steps: [{ text: 'x' }] });
    const denied = await fetch(`${fake.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(denied.status).toBe(401);
    expect(await denied.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
  });
});
