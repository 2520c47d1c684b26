import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemMessage, userMessage, type Message, type ToolMessage } from '../../src/core/message.js';
import type { ChatRequest, ModelTurnEvent, ProviderConversation } from '../../src/core/provider.js';
import { createBedrockAdapter } from '../../src/providers/bedrock.js';
import { cacheFieldsFor } from '../../src/providers/bedrock-wire.js';
import type { ProviderSettings } from '../../src/providers/types.js';
import { bedrockModelOf, startBedrockFake, useFakeAwsEnv } from '../fakes/bedrock-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { tempDir } from '../kit/temp-dir.js';
import { turn, only, last, errorOf } from '../kit/events.js';
import { forkSummary } from './fork-summary.js';
import { expectSilentStderr } from '../kit/silent-stderr.js';

const CLAUDE = 'us.anthropic.claude-sonnet-4-20250514-v1:0';
/** What a Claude model that drops earlier thinking by default gets beside its thinking. */
const KEEP_ALL_FIELDS = { anthropic_beta: ['context-management-2025-06-27'], context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] } };
let awsDir: string;
let restoreEnv: () => void;
let fake: ScriptedServer;

// Nothing from the SDK may reach stderr: it would corrupt the Ink screen.
expectSilentStderr();

beforeAll(() => {
  awsDir = tempDir('keen-aws-');
  writeFileSync(join(awsDir, 'credentials'), '[keen-test]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = profile-secret\n');
  writeFileSync(join(awsDir, 'config'), '[profile keen-test]\nregion = eu-west-1\n');
  // Unset, so the test proves the adapter itself silences the SDK's Node-version warning.
  const warning = process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
  delete process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
  const restore = useFakeAwsEnv({ AWS_CONFIG_FILE: join(awsDir, 'config'), AWS_SHARED_CREDENTIALS_FILE: join(awsDir, 'credentials') });
  restoreEnv = () => {
    restore();
    if (warning !== undefined) process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = warning;
  };
});

afterAll(() => {
  restoreEnv();
});

beforeEach(async () => {
  fake = await startBedrockFake();
});

afterEach(async () => {
  await fake.close();
});

function settings(over: Partial<ProviderSettings> = {}): ProviderSettings {
  return { model: CLAUDE, baseURL: fake.url, region: 'us-east-1', maxRetries: 2, home: '/tmp/keen-test', env: {}, ...over };
}

const TOOLS = [
  { name: 'read_file', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } },
  { name: 'grep', description: 'Search files', input_schema: { type: 'object', properties: { pattern: { type: 'string' } } } },
];

function request(messages: Message[], over: Partial<ChatRequest> = {}): ChatRequest {
  return { model: CLAUDE, messages, tools: TOOLS, maxOutputTokens: 4096, ...over };
}

async function open(messages: Message[] = [systemMessage('You are Keen.'), userMessage('hi')], over: Partial<ChatRequest> = {}, s = settings()) {
  const adapter = await createBedrockAdapter(s);
  return adapter.open(request(messages, over));
}

/** Paths of every cachePoint block in a request body. */
function cachePoints(body: unknown): string[] {
  const found: string[] = [];
  const walk = (v: unknown, path: string) => {
    if (Array.isArray(v)) for (const [i, x] of v.entries()) walk(x, `${path}[${i}]`);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'cachePoint') found.push(path);
        else walk(x, `${path}.${k}`);
      }
    }
  };
  walk(body, '');
  return found;
}

const readResult = (id: string, content: string): ToolMessage => ({ role: 'tool', tool_call_id: id, name: 'read_file', content });

/** One tool turn: the model reads a.txt; the result goes back. */
async function toolTurn(conv: ProviderConversation) {
  fake.enqueue({ steps: [{ text: 'Let me look.' }, { toolCall: { id: 'tu_1', name: 'read_file', args: { path: 'a.txt' } } }], usage: { input: 50, output: 10 } });
  const events = await turn(conv);
  conv.appendToolResults([readResult('tu_1', 'contents of a')]);
  return events;
}

describe('bedrock adapter: streaming', () => {
  it('streams text, reports usage with cache reads and writes, and sends system blocks', async () => {
    fake.enqueue({ steps: [{ text: 'Hello' }, { text: ', world' }], usage: { input: 12, output: 4, cacheRead: 900, cacheWrite: 100 } });
    const conv = await open();
    const events = await turn(conv);

    expect(only(events, 'text_delta').map((e) => e.text)).toEqual(['Hello', ', world']);
    expect(only(events, 'usage')[0].usage).toEqual({ input: 12, output: 4, cache_read: 900, cache_write: 100 });
    expect(last(events)).toMatchObject({ type: 'turn_end', message: { role: 'assistant', content: 'Hello, world' }, stopReason: 'end_turn' });

    const req = fake.requests[0];
    expect(bedrockModelOf(req)).toBe(CLAUDE);
    expect(req.body.system[0]).toEqual({ text: 'You are Keen.' });
    expect(req.body.messages[0].content[0]).toEqual({ text: 'hi' });
    expect(req.body.toolConfig.tools[0].toolSpec).toEqual({ name: 'read_file', description: 'Read a file', inputSchema: { json: TOOLS[0].input_schema } });
    expect(req.body.inferenceConfig).toEqual({ maxTokens: 4096 });
    expect(String(req.headers.authorization)).toContain('Credential=AKIDTEST/');
  });

  it('returns a tool call and sends its result back as a toolResult in the next user turn', async () => {
    const conv = await open();
    const events = await toolTurn(conv);
    expect(only(events, 'turn_end')[0].message.tool_calls).toEqual([{ id: 'tu_1', name: 'read_file', args: '{"path":"a.txt"}' }]);
    const end = last(events);
    expect(end.type === 'turn_end' && end.stopReason).toBe('tool_use');
    expect(end.type === 'turn_end' && end.message.tool_calls).toEqual([{ id: 'tu_1', name: 'read_file', args: '{"path":"a.txt"}' }]);

    fake.enqueue({ steps: [{ text: 'a says: contents of a' }] });
    await turn(conv);
    const msgs = fake.requests[1].body.messages;
    expect(msgs.map((m: any) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(msgs[1].content).toEqual([{ text: 'Let me look.' }, { toolUse: { toolUseId: 'tu_1', name: 'read_file', input: { path: 'a.txt' } } }]);
    expect(msgs[2].content[0]).toEqual({ toolResult: { toolUseId: 'tu_1', content: [{ text: 'contents of a' }] } });
  });

  it('replays reasoning with its signature in the tool loop', async () => {
    const conv = await open([userMessage('think')], { thinkingBudget: 2048 });
    fake.enqueue({ steps: [{ thinking: 'Consider a.txt', signature: 'sig-1' }, { toolCall: { id: 'tu_9', name: 'read_file', args: { path: 'a.txt' } } }] });
    const events = await turn(conv);
    expect(only(events, 'reasoning_delta').map((e) => e.text)).toEqual(['Consider a.txt']);
    conv.appendToolResults([readResult('tu_9', 'x')]);
    fake.enqueue({ steps: [{ text: 'done' }] });
    await turn(conv);
    const body = fake.requests[1].body;
    // Sonnet 4 drops earlier turns' thinking by default: it is asked to keep it (the cache holds).
    expect(body.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 2048 }, ...KEEP_ALL_FIELDS });
    expect(body.messages[1].content[0]).toEqual({ reasoningContent: { reasoningText: { text: 'Consider a.txt', signature: 'sig-1' } } });
  });
});

describe('bedrock adapter: thinking that keeps the cache', () => {
  it('sends the configured budget in every request whatever room the loop leaves, max_tokens above it', async () => {
    const conv = await open([userMessage('think')], { model: 'anthropic.claude-sonnet-4-5-20250929-v1:0', maxOutputTokens: 32_000, thinkingBudget: 16_000 });
    for (const cap of [30_000, 18_000, 17_000]) {
      fake.enqueue({ steps: [{ thinking: 'Consider a.txt', signature: `sig-${cap}` }, { toolCall: { id: `tu_${cap}`, name: 'read_file', args: { path: 'a.txt' } } }] });
      for await (const e of conv.streamTurn(new AbortController().signal, { maxOutputTokens: cap })) expect(e.type).not.toBe('error');
      conv.appendToolResults([readResult(`tu_${cap}`, 'x')]);
    }
    expect(fake.requests.map((r) => r.body.additionalModelRequestFields)).toEqual(Array(3).fill({ thinking: { type: 'enabled', budget_tokens: 16_000 }, ...KEEP_ALL_FIELDS }));
    expect(fake.requests.map((r) => r.body.inferenceConfig.maxTokens)).toEqual([30_000, 18_000, 17_000]);
  });

  it('leaves thinking out of the session when its output limit cannot hold the budget', async () => {
    const conv = await open([userMessage('think')], { model: 'anthropic.claude-sonnet-4-5-20250929-v1:0', maxOutputTokens: 8_000, thinkingBudget: 16_000 });
    fake.enqueue({ steps: [{ text: 'ok' }] });
    await turn(conv);
    expect(fake.requests[0].body.additionalModelRequestFields).toBeUndefined();
  });
});

describe('bedrock adapter: prompt caching', () => {
  it('puts cache points after the system blocks, after the tools and on the newest message', async () => {
    const conv = await open();
    await toolTurn(conv);
    fake.enqueue({ steps: [{ text: 'ok' }] });
    await turn(conv);
    expect(cachePoints(fake.requests[0].body)).toEqual(['.messages[0].content[1]', '.system[1]', '.toolConfig.tools[2]']);
    expect(cachePoints(fake.requests[1].body)).toEqual(['.messages[2].content[1]', '.system[1]', '.toolConfig.tools[2]']);
  });

  it('a request with promptCache false (the budgeted document) carries no cache point', async () => {
    fake.enqueue({ steps: [{ text: '## Summary' }] });
    await turn(await open([systemMessage('Summarise.'), userMessage('<document>…</document>')], { promptCache: false }));
    expect(cachePoints(fake.requests[0].body)).toEqual([]);
  });

  it('knows which models take cache points, and where', async () => {
    expect(cacheFieldsFor('amazon.nova-pro-v1:0')).toEqual({ system: true, tools: false, messages: true });
    expect(cacheFieldsFor('anthropic.claude-3-haiku-20240307-v1:0')).toBeUndefined();
    expect(cacheFieldsFor('meta.llama3-70b-instruct-v1:0')).toBeUndefined();
    expect(cacheFieldsFor(`arn:aws:bedrock:us-east-1:123:inference-profile/${CLAUDE}`)).toEqual({ system: true, tools: true, messages: true });

    fake.enqueue({ steps: [{ text: 'a' }] }, { steps: [{ text: 'b' }] });
    await turn(await open(undefined, { model: 'us.amazon.nova-lite-v1:0' }));
    await turn(await open(undefined, { model: 'meta.llama3-70b-instruct-v1:0' }));
    expect(cachePoints(fake.requests[0].body)).toEqual(['.messages[0].content[1]', '.system[1]']);
    expect(cachePoints(fake.requests[1].body)).toEqual([]);
  });
});

describe('bedrock adapter: alternating turns', () => {
  it('is refused by the fake, as by the service, when roles do not alternate', async () => {
    const { BedrockRuntimeClient, ConverseStreamCommand } = await import('@aws-sdk/client-bedrock-runtime');
    const { NodeHttpHandler } = await import('@smithy/node-http-handler');
    const client = new BedrockRuntimeClient({ endpoint: fake.url, region: 'us-east-1', requestHandler: new NodeHttpHandler(), maxAttempts: 1 });
    const send = (messages: any[]) => client.send(new ConverseStreamCommand({ modelId: CLAUDE, messages }));
    await expect(
      send([
        { role: 'user', content: [{ text: 'a' }] },
        { role: 'user', content: [{ text: 'b' }] },
      ]),
    ).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringContaining('must alternate between user and assistant'),
    });
    await expect(send([{ role: 'assistant', content: [{ text: 'a' }] }])).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('merges consecutive user content into one turn', async () => {
    fake.enqueue({ steps: [{ text: 'ok' }] });
    const conv = await open([systemMessage('sys'), userMessage('first'), userMessage('second')]);
    expect(last(await turn(conv)).type).toBe('turn_end');
    const msgs = fake.requests[0].body.messages;
    expect(msgs).toHaveLength(1);
    expect(msgs[0].content.filter((b: any) => b.text)).toEqual([{ text: 'first' }, { text: 'second' }]);
  });

  it('answers a tool call that never got its result, so an interrupted history is accepted', async () => {
    fake.enqueue({ steps: [{ text: 'ok' }] });
    const conv = await open([
      userMessage('read it'),
      { role: 'assistant', content: '', tool_calls: [{ id: 'tu_x', name: 'read_file', args: '{"path":"a"}' }] },
      userMessage('never mind'),
    ]);
    expect(last(await turn(conv)).type).toBe('turn_end');
    const msgs = fake.requests[0].body.messages;
    expect(msgs.map((m: any) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(msgs[2].content[0].toolResult).toMatchObject({ toolUseId: 'tu_x', status: 'error' });
    expect(msgs[2].content[1]).toEqual({ text: 'never mind' });
  });

  it('fork + appendUserText after tool results sends the parent request plus one text block in the final user turn', async () => {
    const conv = await open();
    await toolTurn(conv);
    const { childBody, parentBody } = await forkSummary(conv, fake, 'Summarize the conversation.');
    const finalTurn = childBody.messages[childBody.messages.length - 1];
    expect(finalTurn.content[finalTurn.content.length - 1]).toEqual({ text: 'Summarize the conversation.' });
    const expected = structuredClone(parentBody);
    expected.messages[expected.messages.length - 1].content.push({ text: 'Summarize the conversation.' });
    expect(childBody).toEqual(expected);
    // Same cached prefix: the cache point still follows the tool results.
    expect(cachePoints(childBody)).toEqual(cachePoints(parentBody));
    // The parent never saw the child's text.
    expect(JSON.stringify(parentBody)).not.toContain('Summarize');
  });
});

describe('bedrock adapter: compaction replacement', () => {
  it('keeps its system blocks and rebuilds the messages from the replacement', async () => {
    const conv = await open();
    await toolTurn(conv);
    const summary = '<compacted_context>read a.txt</compacted_context>\n<last_user_message>hi</last_user_message>';
    conv.replaceHistory([systemMessage('a different system prompt'), userMessage(summary)]);
    fake.enqueue({ steps: [{ text: 'continuing' }] });
    await turn(conv);
    const body = fake.requests[1].body;
    expect(body.system).toEqual([{ text: 'You are Keen.' }, { cachePoint: { type: 'default' } }]);
    expect(body.messages).toEqual([{ role: 'user', content: [{ text: summary }, { cachePoint: { type: 'default' } }] }]);
    expect(body.toolConfig.tools).toHaveLength(3);
  });
});

describe('bedrock adapter: errors', () => {
  it('maps "Input is too long" to context_window and leaves the history unchanged', async () => {
    const conv = await open();
    fake.enqueue({ error: { status: 400, type: 'ValidationException', message: 'Input is too long for requested model.' } });
    const err = errorOf(await turn(conv));
    expect(err.kind).toBe('context_window');
    expect(err.message).not.toContain('\n');
    fake.enqueue({ steps: [{ text: 'ok' }] });
    await turn(conv);
    expect(fake.requests[1].body).toEqual(fake.requests[0].body);
  });

  it('retries throttling, then succeeds', async () => {
    fake.enqueue({ error: { status: 429, message: 'Too many requests, please wait before trying again.' } }, { steps: [{ text: 'made it' }] });
    const events = await turn(await open());
    expect(last(events)).toMatchObject({ type: 'turn_end', message: { content: 'made it' } });
    expect(fake.requests).toHaveLength(2);
  });

  it('throttling waits go through Keen: announced in the stream, capped by maxRetryWait', async () => {
    const throttled = { error: { status: 429, type: 'ThrottlingException', message: 'Too many requests, please wait before trying again.' } };
    fake.enqueue(throttled, throttled, { steps: [{ text: 'made it' }] });
    const events = await turn(await open(undefined, undefined, settings({ maxRetryWaitMs: 5 })));
    const waits = only(events, 'retry_wait').map((e) => e.wait);
    const host = new URL(fake.url).host;
    expect(waits.map((w) => [w.host, w.status, w.retry, w.of])).toEqual([
      [host, 429, 1, 2],
      [host, 429, 2, 2],
    ]);
    for (const w of waits) expect(w.waitMs).toBeLessThanOrEqual(5);
    expect(last(events)).toMatchObject({ type: 'turn_end', message: { content: 'made it' } });
    expect(fake.requests).toHaveLength(3);
  });

  it('maxRetries 0 sends one request and no wait', async () => {
    fake.setResponder(() => ({ error: { status: 503, type: 'ServiceUnavailableException', message: 'Bedrock is unable to process your request.' } }));
    const events = await turn(await open(undefined, undefined, settings({ maxRetries: 0 })));
    expect(only(events, 'retry_wait')).toEqual([]);
    expect(errorOf(events).status).toBe(503);
    expect(fake.requests).toHaveLength(1);
  });

  it('surfaces throttling as rate_limit once the retries are spent', async () => {
    fake.setResponder(() => ({ error: { status: 429, message: 'Too many requests, please wait before trying again.' } }));
    const err = errorOf(await turn(await open(undefined, undefined, settings({ maxRetries: 1 }))));
    expect(err.kind).toBe('rate_limit');
    expect(fake.requests).toHaveLength(2);
  });

  it('turns expired credentials into one clear auth line', async () => {
    fake.enqueue({ error: { status: 403, type: 'ExpiredTokenException', message: 'The security token included in the request is expired' } });
    const err = errorOf(await turn(await open()));
    expect(err.kind).toBe('auth');
    expect(err.message).toMatch(/AWS credentials have expired/);
    expect(err.message).not.toContain('\n');
  });

  it('names the fix when no credentials can be found', async () => {
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    try {
      const err = errorOf(await turn(await open()));
      expect(err.kind).toBe('auth');
      expect(err.message).toMatch(/^No AWS credentials found: set AWS_PROFILE/);
      expect(fake.requests).toHaveLength(0);
    } finally {
      process.env.AWS_ACCESS_KEY_ID = saved.id;
      process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
    }
  });

  it('reports a cut stream as a network error', async () => {
    fake.enqueue({ steps: [{ text: 'partial' }, { cut: true }] });
    const conv = await open();
    const events = await turn(conv);
    expect(errorOf(events).kind).toBe('network');
    fake.enqueue({ steps: [{ text: 'ok' }] });
    await turn(conv);
    expect(fake.requests[1].body.messages).toHaveLength(1);
  });

  it('a stream that goes silent fails as a network error at the body limit instead of hanging the turn', async () => {
    fake.enqueue({ steps: [{ text: 'slow' }, { delayMs: 5000 }, { text: 'never' }] });
    const adapter = await createBedrockAdapter(settings({ maxRetries: 0 }), { connectTimeoutMs: 1000, bodyTimeoutMs: 300 });
    const conv = await adapter.open(request([systemMessage('You are Keen.'), userMessage('hi')]));
    const events = await turn(conv);
    expect(errorOf(events)).toMatchObject({ kind: 'network' });
    expect(errorOf(events).message).toMatch(/300 ms of inactivity/);
  });

  it('reports an abort as cancelled', async () => {
    fake.enqueue({ steps: [{ text: 'slow' }, { hold: true }, { text: 'never' }] });
    const ac = new AbortController();
    const conv = await open();
    const events: ModelTurnEvent[] = [];
    for await (const e of conv.streamTurn(ac.signal)) {
      events.push(e);
      if (e.type === 'text_delta') ac.abort();
    }
    expect(errorOf(events).kind).toBe('cancelled');
  });
});

describe('bedrock adapter: configuration', () => {
  it('reads the endpoint from AWS_ENDPOINT_URL_BEDROCK_RUNTIME', async () => {
    fake.enqueue({ steps: [{ text: 'via env' }] });
    const events = await turn(await open(undefined, undefined, settings({ baseURL: undefined, env: { AWS_ENDPOINT_URL_BEDROCK_RUNTIME: fake.url } })));
    expect(last(events).type).toBe('turn_end');
    expect(fake.requests).toHaveLength(1);
  });

  it('signs with the configured profile', async () => {
    fake.enqueue({ steps: [{ text: 'profiled' }] });
    const events = await turn(await open(undefined, undefined, settings({ awsProfile: 'keen-test', region: undefined })));
    expect(last(events).type).toBe('turn_end');
    expect(String(fake.requests[0].headers.authorization)).toMatch(/Credential=AKIDPROFILE\/\d+\/us-east-1\/bedrock\//);
  });
});
