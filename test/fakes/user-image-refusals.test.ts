/**
 * The fakes check images in user messages as the services do: an image whose bytes are not its
 * declared type is refused by each, so an adapter that sends a wrong user image fails against
 * them; the correct block is accepted.
 */
import { describe, expect, it } from 'vitest';
import { pngBase64 } from '../kit/png-bytes.js';
import { startAnthropicFake } from './anthropic-fake.js';
import { startBedrockFake } from './bedrock-fake.js';
import { startGeminiFake } from './gemini-fake.js';
import { startOpenAIChatFake } from './openai-chat-fake.js';
import { startOpenAIResponsesFake } from './openai-responses-fake.js';
import type { ScriptedServer } from './scripted-server.js';

const PNG = pngBase64(4, 4);

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

interface Case {
  name: string;
  start: () => Promise<ScriptedServer>;
  path: string;
  headers?: Record<string, string>;
  /** A request whose one user message holds the image declared `type`. */
  body: (type: string, data: string) => unknown;
  refusal: string;
}

const CASES: Case[] = [
  {
    name: 'anthropic image block',
    start: startAnthropicFake,
    path: '/v1/messages',
    headers: { 'x-api-key': 'k' },
    body: (media_type, data) => ({
      model: 'm',
      max_tokens: 10,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type, data } },
            { type: 'text', text: 'what is this' },
          ],
        },
      ],
    }),
    refusal: 'messages.0.content.0.image.source.base64: the image was specified using the image/jpeg media type, but it appears to be a image/png image',
  },
  {
    name: 'chat image_url part',
    start: startOpenAIChatFake,
    path: '/v1/chat/completions',
    body: (type, data) => ({
      model: 'm',
      stream: true,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: `data:${type};base64,${data}` } },
            { type: 'text', text: 'what is this' },
          ],
        },
      ],
    }),
    refusal: "Invalid 'messages[0].content[0].image_url.url': the image was specified using the image/jpeg media type",
  },
  {
    name: 'responses input_image',
    start: startOpenAIResponsesFake,
    path: '/v1/responses',
    body: (type, data) => ({
      model: 'm',
      stream: true,
      input: [
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_image', image_url: `data:${type};base64,${data}`, detail: 'auto' },
            { type: 'input_text', text: 'what is this' },
          ],
        },
      ],
    }),
    refusal: "Invalid 'input[0].content[0].image_url': the image was specified using the image/jpeg media type",
  },
  {
    name: 'converse image block',
    start: startBedrockFake,
    path: '/model/m/converse-stream',
    body: (type, data) => ({ messages: [{ role: 'user', content: [{ image: { format: type.slice(6), source: { bytes: data } } }, { text: 'what is this' }] }] }),
    refusal: 'The image at messages.0.content.0.image is invalid: the image was specified using the image/jpeg media type',
  },
  {
    name: 'gemini inlineData',
    start: startGeminiFake,
    path: '/v1beta/models/m:streamGenerateContent?alt=sse',
    headers: { 'x-goog-api-key': 'k' },
    body: (mimeType, data) => ({ contents: [{ role: 'user', parts: [{ inlineData: { mimeType, data } }, { text: 'what is this' }] }] }),
    refusal: "Invalid value at 'contents[0].parts[0].inline_data': the image was specified using the image/jpeg media type",
  },
];

describe('fakes check images in user messages', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s: a mislabelled image is refused, a correct one accepted', async (_name, c) => {
    const fake = await c.start();
    try {
      const url = `${fake.url}${c.path}`;
      const refused = await post(url, c.body('image/jpeg', PNG), c.headers);
      expect(refused.status).toBe(400);
      expect(refused.text).toContain(c.refusal);
      fake.enqueue({ steps: [{ text: 'a square' }] });
      expect((await post(url, c.body('image/png', PNG), c.headers)).status).toBe(200);
    } finally {
      await fake.close();
    }
  });
});
