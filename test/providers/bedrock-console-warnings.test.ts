/**
 * The AWS SDK's JSON codec `console.warn`s past its logger ("JsonCodec2: you have called a string
 * method on a Uint8Array request body"), asynchronously inside `client.send`. Nothing on Keen's own
 * paths calls such a method (docs/providers.md), so an HTTP handler here does what a handler of a
 * later SDK might: it reads the request body, the codec's real `JsonBytesStringAdapter`, with a
 * string method. The SDK then prints its real warning; Keen shows it once as its own warning line.
 */
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { systemMessage, userMessage } from '../../src/core/message.js';
import { createBedrockAdapter } from '../../src/providers/bedrock.js';
import { startBedrockFake, useFakeAwsEnv } from '../fakes/bedrock-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { last, turn } from '../kit/events.js';
import { expectSilentStderr } from '../kit/silent-stderr.js';

const CLAUDE = 'us.anthropic.claude-sonnet-4-20250514-v1:0';
let fake: ScriptedServer;
let restoreEnv: () => void;
const handle = NodeHttpHandler.prototype.handle;

expectSilentStderr();

beforeAll(async () => {
  restoreEnv = useFakeAwsEnv();
  fake = await startBedrockFake();
});

afterAll(async () => {
  restoreEnv();
  await fake.close();
});

beforeEach(() => {
  // The codec warns at most once a minute; each request here is a minute after the last.
  vi.useFakeTimers({ toFake: ['Date'] });
  NodeHttpHandler.prototype.handle = function (this: NodeHttpHandler, request, options) {
    (request.body as { includes(s: string): boolean }).includes('"messages"');
    return handle.call(this, request, options);
  };
});

afterEach(() => {
  NodeHttpHandler.prototype.handle = handle;
  vi.useRealTimers();
});

it("the SDK's JsonCodec2 console warning is one Keen warning line for the session, never raw", async () => {
  const lines: string[] = [];
  const adapter = await createBedrockAdapter({
    model: CLAUDE,
    baseURL: fake.url,
    region: 'us-east-1',
    maxRetries: 0,
    home: '/tmp/keen-test',
    env: {},
    onWarning: (l) => lines.push(l),
  });
  fake.enqueue({ steps: [{ text: 'One.' }] }, { steps: [{ text: 'Two.' }] });
  const consoleWarn = console.warn;
  for (const text of ['first', 'second']) {
    vi.setSystemTime(Date.now() + 61_000);
    const conv = await adapter.open({ model: CLAUDE, messages: [systemMessage('You are Keen.'), userMessage(text)], tools: [], maxOutputTokens: 1024 });
    expect(last(await turn(conv))).toMatchObject({ type: 'turn_end' });
    expect(console.warn).toBe(consoleWarn);
  }
  expect(fake.requests).toHaveLength(2);
  expect(lines).toEqual([
    'Bedrock: JsonCodec2: you have called a string method on a Uint8Array request body. It has been automatically converted to string. In a future version this will throw an error.',
  ]);
});
