import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KeenError } from '../../src/errors.js';
import { systemMessage, userMessage, type Message, type ToolMessage } from '../../src/core/message.js';
import type { ChatRequest, ModelTurnEvent, ProviderConversation } from '../../src/core/provider.js';
import { createGenkitAdapter } from '../../src/providers/genkit.js';
import type { ProviderSettings } from '../../src/providers/types.js';
import { geminiModelOf, startGeminiFake } from '../fakes/gemini-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { turn, only, last, errorOf } from '../kit/events.js';
import { forkSummary } from './fork-summary.js';
import { expectSilentStderr } from '../kit/silent-stderr.js';

const MODEL = 'gemini-2.5-flash';
let fake: ScriptedServer;
let signalListeners: number;

// Genkit logs failed fetches and registry notices; none of it may reach the terminal.
expectSilentStderr();

beforeAll(() => {
  signalListeners = process.listenerCount('SIGINT') + process.listenerCount('SIGTERM');
});

beforeEach(async () => {
  fake = await startGeminiFake();
});

afterEach(async () => {
  await fake.close();
  // Genkit's own SIGINT/SIGTERM handlers (process.exit(0)) must not survive the import.
  expect(process.listenerCount('SIGINT') + process.listenerCount('SIGTERM')).toBe(signalListeners);
});

function settings(over: Partial<ProviderSettings> = {}): ProviderSettings {
  return { model: MODEL, apiKey: 'gemini-test-key', baseURL: fake.url, maxRetries: 2, home: '/tmp/keen-test', env: {}, ...over };
}

const TOOLS = [
  { name: 'read_file', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  { name: 'grep', description: 'Search files', input_schema: { type: 'object', properties: { pattern: { type: 'string' } } } },
];

function request(messages: Message[], over: Partial<ChatRequest> = {}): ChatRequest {
  return { model: MODEL, messages, tools: TOOLS, maxOutputTokens: 4096, ...over };
}

async function open(messages: Message[] = [systemMessage('You are Keen.'), userMessage('hi')], over: Partial<ChatRequest> = {}, s = settings()) {
  const adapter = await createGenkitAdapter(s);
  return adapter.open(request(messages, over));
}

const readResult = (id: string, content: string): ToolMessage => ({ role: 'tool', tool_call_id: id, name: 'read_file', content });

/** One tool turn: the model reads a.txt; the result goes back. Returns the call id. */
async function toolTurn(conv: ProviderConversation, modelId?: string): Promise<string> {
  fake.enqueue({ steps: [{ text: 'Let me look.' }, { toolCall: { id: modelId, name: 'read_file', args: { path: 'a.txt' } } }], usage: { input: 50, output: 10 } });
  const events = await turn(conv);
  const call = only(events, 'turn_end')[0].message.tool_calls![0];
  conv.appendToolResults([readResult(call.id, 'contents of a')]);
  return call.id;
}

describe('genkit adapter: streaming', () => {
  it('streams text and reports usage with cached tokens taken out of the input', async () => {
    fake.enqueue({ steps: [{ text: 'Hello' }, { text: ', world' }], usage: { input: 12, output: 4, cacheRead: 900 } });
    const conv = await open();
    const events = await turn(conv);

    expect(only(events, 'text_delta').map((e) => e.text)).toEqual(['Hello', ', world']);
    expect(only(events, 'usage')[0].usage).toEqual({ input: 12, output: 4, cache_read: 900, cache_write: 0 });
    expect(last(events)).toMatchObject({ type: 'turn_end', message: { role: 'assistant', content: 'Hello, world' }, stopReason: 'end_turn' });

    const req = fake.requests[0];
    expect(geminiModelOf(req)).toBe(MODEL);
    expect(req.headers['x-goog-api-key']).toBe('gemini-test-key');
    expect(req.body.systemInstruction).toEqual({ role: 'user', parts: [{ text: 'You are Keen.' }] });
    expect(req.body.contents).toEqual([{ role: 'user', parts: [{ text: 'hi' }] }]);
    expect(req.body.generationConfig).toEqual({ maxOutputTokens: 4096 });
    expect(req.body.tools[0].functionDeclarations.map((f: any) => f.name)).toEqual(['read_file', 'grep']);
  });

  it('streams thoughts as reasoning and replays the signature on the part Gemini put it on', async () => {
    fake.enqueue({ steps: [{ thinking: 'Consider the question', signature: 'sig-g' }, { text: 'Answer' }] });
    const conv = await open(undefined, { thinkingBudget: 1024 });
    const events = await turn(conv);
    expect(only(events, 'reasoning_delta').map((e) => e.text)).toEqual(['Consider the question']);
    expect(last(events)).toMatchObject({
      type: 'turn_end',
      message: {
        content: 'Answer',
        reasoning: [{ provider: 'genkit', text: 'Consider the question' }],
        parts: [
          { type: 'reasoning', text: 'Consider the question' },
          { type: 'text', text: 'Answer', meta: { metadata: { thoughtSignature: 'sig-g' } } },
        ],
      },
    });
    expect(fake.requests[0].body.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 1024, includeThoughts: true });

    conv.appendUserText('And then?');
    fake.enqueue({ steps: [{ text: 'Then this.' }] });
    await turn(conv);
    const contents = fake.requests[1].body.contents;
    expect(contents[1]).toEqual({
      role: 'model',
      parts: [
        { thought: true, text: 'Consider the question' },
        { text: 'Answer', thoughtSignature: 'sig-g' },
      ],
    });
    expect(contents[2]).toEqual({ role: 'user', parts: [{ text: 'And then?' }] });
  });

  it('returns tool calls to Keen and sends the result back as a functionResponse', async () => {
    const conv = await open();
    fake.enqueue({ steps: [{ toolCall: { name: 'read_file', args: { path: 'a.txt' } } }] });
    const events = await turn(conv);
    const calls = only(events, 'turn_end')[0].message.tool_calls ?? [];
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ name: 'read_file', args: '{"path":"a.txt"}' });
    expect(calls[0].id).toBeTruthy();
    expect(last(events)).toMatchObject({ type: 'turn_end', stopReason: 'tool_use', message: { tool_calls: calls } });

    conv.appendToolResults([readResult(calls[0].id, 'contents of a')]);
    fake.enqueue({ steps: [{ text: 'done' }] });
    await turn(conv);
    const contents = fake.requests[1].body.contents;
    expect(contents.map((c: any) => c.role)).toEqual(['user', 'model', 'user']);
    expect(contents[1].parts).toEqual([{ functionCall: { name: 'read_file', args: { path: 'a.txt' } } }]);
    // The model sent no id, so none goes back.
    expect(contents[2].parts).toEqual([{ functionResponse: { name: 'read_file', response: { name: 'read_file', content: 'contents of a' } } }]);
  });

  it('keeps the model’s own function-call id on the response', async () => {
    const conv = await open();
    expect(await toolTurn(conv, 'fc-7')).toBe('fc-7');
    fake.enqueue({ steps: [{ text: 'done' }] });
    await turn(conv);
    const contents = fake.requests[1].body.contents;
    expect(contents[1].parts[1].functionCall.id).toBe('fc-7');
    expect(contents[2].parts[0].functionResponse.id).toBe('fc-7');
  });
});

describe('genkit adapter: compaction', () => {
  it('fork + appendUserText after tool results sends the parent request plus one final user message', async () => {
    const conv = await open();
    await toolTurn(conv);
    const { childBody, parentBody } = await forkSummary(conv, fake, 'Summarize the conversation.');
    const expected = structuredClone(parentBody);
    expected.contents.push({ role: 'user', parts: [{ text: 'Summarize the conversation.' }] });
    expect(childBody).toEqual(expected);
    expect(JSON.stringify(parentBody)).not.toContain('Summarize');
  });

  it('rebuilds its messages, system included, from the replacement', async () => {
    const conv = await open();
    await toolTurn(conv);
    const summary = '<compacted_context>read a.txt</compacted_context>\n<last_user_message>hi</last_user_message>';
    conv.replaceHistory([systemMessage('You are Keen, compacted.'), userMessage(summary)]);
    fake.enqueue({ steps: [{ text: 'continuing' }] });
    await turn(conv);
    const body = fake.requests[1].body;
    expect(body.systemInstruction).toEqual({ role: 'user', parts: [{ text: 'You are Keen, compacted.' }] });
    expect(body.contents).toEqual([{ role: 'user', parts: [{ text: summary }] }]);
    expect(body.tools[0].functionDeclarations).toHaveLength(2);
  });
});

describe('genkit adapter: errors', () => {
  it('maps the token-count error to context_window and leaves the history unchanged', async () => {
    const conv = await open();
    fake.enqueue({ error: { status: 400, message: 'The input token count (2000000) exceeds the maximum number of tokens allowed (1048576).' } });
    const err = errorOf(await turn(conv));
    expect(err.kind).toBe('context_window');
    expect(err.message).not.toContain('http://');
    fake.enqueue({ steps: [{ text: 'ok' }] });
    await turn(conv);
    expect(fake.requests[1].body).toEqual(fake.requests[0].body);
  });

  it('retries a 429, then succeeds', async () => {
    fake.enqueue({ error: { status: 429, message: 'Resource has been exhausted (e.g. check quota).' } }, { steps: [{ text: 'made it' }] });
    const events = await turn(await open());
    expect(only(events, 'text_delta').map((e) => e.text)).toEqual(['made it']);
    expect(last(events)).toMatchObject({ type: 'turn_end', message: { content: 'made it' } });
    expect(fake.requests).toHaveLength(2);
  });

  it('surfaces rate limiting once the retries are spent', async () => {
    fake.setResponder(() => ({ error: { status: 429, message: 'Resource has been exhausted (e.g. check quota).' } }));
    const err = errorOf(await turn(await open(undefined, undefined, settings({ maxRetries: 1 }))));
    expect(err.kind).toBe('rate_limit');
    expect(err.message).toBe('Gemini rate limit or quota reached after 2 attempts: Resource has been exhausted (e.g. check quota).');
    expect(fake.requests).toHaveLength(2);
  });

  it('honours the RetryInfo retryDelay of a quota 429: the wait is announced in the stream, then waited', async () => {
    fake.enqueue({ error: { status: 429, message: 'You exceeded your current quota.', retryDelay: '0.05s' } }, { steps: [{ text: 'made it' }] });
    const events = await turn(await open());
    const host = new URL(fake.url).host;
    expect(only(events, 'retry_wait')).toEqual([{ type: 'retry_wait', wait: { host, status: 429, waitMs: 50, retry: 1, of: 2 } }]);
    expect(last(events)).toMatchObject({ type: 'turn_end', message: { content: 'made it' } });
    expect(fake.requests).toHaveLength(2);
  });

  it('a retryDelay beyond maxRetryWait gives up at once with one line naming the wait', async () => {
    fake.enqueue({ error: { status: 429, message: 'You exceeded your current quota.', retryDelay: '34.4s' } });
    const events = await turn(await open(undefined, undefined, settings({ maxRetryWaitMs: 10_000 })));
    expect(only(events, 'retry_wait')).toEqual([]);
    const err = errorOf(events);
    expect(err.kind).toBe('rate_limit');
    expect(err.message).toContain('the server asked to wait 34 s before retrying, more than Keen waits (10 s, config maxRetryWait)');
    expect(err.message).not.toContain('\n');
    expect(fake.requests).toHaveLength(1);
  });

  it('caps its own backoff at maxRetryWait and announces every wait', async () => {
    fake.enqueue({ error: { status: 503, message: 'The model is overloaded.' } }, { error: { status: 503, message: 'The model is overloaded.' } }, { steps: [{ text: 'ok' }] });
    const events = await turn(await open(undefined, undefined, settings({ maxRetryWaitMs: 5 })));
    const waits = only(events, 'retry_wait').map((e) => e.wait);
    expect(waits.map((w) => [w.status, w.retry, w.of])).toEqual([
      [503, 1, 2],
      [503, 2, 2],
    ]);
    for (const w of waits) expect(w.waitMs).toBeLessThanOrEqual(5);
    expect(last(events)).toMatchObject({ type: 'turn_end' });
  });

  it('turns a rejected key into one clear auth line', async () => {
    fake.enqueue({ error: { status: 400, message: 'API key not valid. Please pass a valid API key.' } });
    const err = errorOf(await turn(await open()));
    expect(err.kind).toBe('auth');
    expect(err.message).toMatch(/^Gemini rejected the API key: API key not valid\. .*GEMINI_API_KEY/);
  });

  it('reports a cut stream as a network error without retrying', async () => {
    fake.enqueue({ steps: [{ text: 'partial' }, { cut: true }] });
    const events = await turn(await open());
    expect(only(events, 'text_delta').map((e) => e.text)).toEqual(['partial']);
    expect(errorOf(events).kind).toBe('network');
    expect(fake.requests).toHaveLength(1);
  });

  it('a blocked prompt (promptFeedback, no candidates) is a refusal, and the next request is unchanged', async () => {
    fake.enqueue({ stopReason: 'refusal', refusal: { prompt: true, native: 'PROHIBITED_CONTENT' } }, { steps: [{ text: 'ok' }] });
    const conv = await open();
    const events = await turn(conv);
    expect(events.at(-1)).toMatchObject({ type: 'turn_end', stopReason: 'refusal', explanation: 'Gemini blocked the prompt' });
    expect(fake.requests).toHaveLength(1);
    await turn(conv);
    expect(fake.requests[1].body.contents).toEqual(fake.requests[0].body.contents);
  });

  it('reports an abort as cancelled', async () => {
    fake.enqueue({ steps: [{ text: 'slow' }, { hold: true }, { text: 'never' }] });
    const ac = new AbortController();
    const events: ModelTurnEvent[] = [];
    for await (const e of (await open()).streamTurn(ac.signal)) {
      events.push(e);
      if (e.type === 'text_delta') ac.abort();
    }
    expect(errorOf(events).kind).toBe('cancelled');
  });
});

describe('genkit adapter: configuration', () => {
  it('refuses to start without a key, naming GEMINI_API_KEY and --provider', async () => {
    const err = await createGenkitAdapter(settings({ apiKey: undefined, env: {} })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeenError);
    expect((err as Error).message).toMatch(/GEMINI_API_KEY.*--provider/);
  });

  it('takes GOOGLE_API_KEY and GOOGLE_GEMINI_BASE_URL from the environment', async () => {
    fake.enqueue({ steps: [{ text: 'via env' }] });
    const s = settings({ apiKey: undefined, baseURL: undefined, env: { GOOGLE_API_KEY: 'google-key', GOOGLE_GEMINI_BASE_URL: `${fake.url}/v1beta/` } });
    expect(last(await turn(await open(undefined, undefined, s))).type).toBe('turn_end');
    expect(fake.requests[0].headers['x-goog-api-key']).toBe('google-key');
  });
});
