/**
 * The fakes check images in tool results as the services do, so an adapter that sends a wrong
 * image block fails against them: a media type the API does not take, data that is not base64,
 * bytes that are not the declared type, or an image where the wire API allows none (a Chat
 * Completions tool message), or more images in one request than the service takes. A correct
 * block is accepted.
 */
import { describe, expect, it } from 'vitest';
import { startAnthropicFake } from './anthropic-fake.js';
import { startBedrockFake } from './bedrock-fake.js';
import { startOpenAIChatFake } from './openai-chat-fake.js';
import { startOpenAIResponsesFake } from './openai-responses-fake.js';
import type { ScriptedServer } from './scripted-server.js';
import { pngBase64 } from '../kit/png-bytes.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const NOT_AN_IMAGE = Buffer.from('just some text, no pixels').toString('base64');

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

async function withFake(start: () => Promise<ScriptedServer>, run: (fake: ScriptedServer) => Promise<void>): Promise<void> {
  const fake = await start();
  try {
    await run(fake);
  } finally {
    await fake.close();
  }
}

describe('fakes check images in tool results', () => {
  it('anthropic: tool_result image blocks', async () => {
    await withFake(startAnthropicFake, async (fake) => {
      const url = `${fake.url}/v1/messages`;
      const headers = { 'x-api-key': 'k' };
      const body = (image: object) => ({
        model: 'm',
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'snap', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'shot' }, image] }] },
        ],
      });
      const image = (media_type: string, data: string) => ({ type: 'image', source: { type: 'base64', media_type, data } });
      let r = await post(url, body(image('image/bmp', PNG)), headers);
      expect(r.status).toBe(400);
      expect(r.text).toContain("messages.2.content.0.tool_result.content.1.image.source.base64.media_type: Input should be 'image/jpeg'");
      r = await post(url, body(image('image/jpeg', PNG)), headers);
      expect(r.status).toBe(400);
      expect(r.text).toContain('specified using the image/jpeg media type, but it appears to be a image/png image');
      r = await post(url, body(image('image/png', 'not base64!')), headers);
      expect(r.text).toContain('not valid base64');
      r = await post(url, body({ type: 'image', source: { type: 'file', file_id: 'f' } }), headers);
      expect(r.text).toContain("does not match any of the expected tags: 'base64', 'url'");
      fake.enqueue({ steps: [{ text: 'a dot' }] });
      expect((await post(url, body(image('image/png', PNG)), headers)).status).toBe(200);
    });
  });

  it('bedrock: toolResult image blocks', async () => {
    await withFake(startBedrockFake, async (fake) => {
      const url = `${fake.url}/model/m/converse-stream`;
      const body = (image: object) => ({
        toolConfig: { tools: [{ toolSpec: { name: 'snap', inputSchema: { json: {} } } }] },
        messages: [
          { role: 'user', content: [{ text: 'go' }] },
          { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'snap', input: {} } }] },
          { role: 'user', content: [{ toolResult: { toolUseId: 't1', content: [{ text: 'shot' }, image] } }] },
        ],
      });
      let r = await post(url, body({ image: { format: 'bmp', source: { bytes: PNG } } }));
      expect(r.status).toBe(400);
      expect(r.text).toContain('messages.2.content.0.toolResult.content.1.image.format failed to satisfy constraint');
      r = await post(url, body({ image: { format: 'png', source: { bytes: NOT_AN_IMAGE } } }));
      expect(r.status).toBe(400);
      expect(r.text).toContain('could not be processed as an image');
      r = await post(url, body({ video: {} }));
      expect(r.text).toContain('unsupported member: video');
      fake.enqueue({ steps: [{ text: 'a dot' }] });
      expect((await post(url, body({ image: { format: 'png', source: { bytes: PNG } } }))).status).toBe(200);
    });
  });

  it('responses: input_image in a function_call_output', async () => {
    await withFake(startOpenAIResponsesFake, async (fake) => {
      const url = `${fake.url}/v1/responses`;
      const body = (output: unknown) => ({
        model: 'm',
        stream: true,
        input: [
          { type: 'message', role: 'user', content: 'go' },
          { type: 'function_call', call_id: 'c1', name: 'snap', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c1', output },
        ],
      });
      let r = await post(url, body([{ type: 'input_image', image_url: 'https://example.com/a.png' }]));
      expect(r.status).toBe(400);
      expect(r.text).toContain("Invalid 'input[2].output[0].image_url'");
      r = await post(url, body([{ type: 'input_image', image_url: `data:image/gif;base64,${PNG}` }]));
      expect(r.text).toContain('it appears to be a image/png image');
      r = await post(url, body([{ type: 'output_text', text: 'x' }]));
      expect(r.text).toContain("Supported values are: 'input_text', 'input_image', and 'input_file'");
      fake.enqueue({ steps: [{ text: 'a dot' }] });
      expect(
        (
          await post(
            url,
            body([
              { type: 'input_text', text: 'shot' },
              { type: 'input_image', image_url: `data:image/png;base64,${PNG}` },
            ]),
          )
        ).status,
      ).toBe(200);
    });
  });

  it('chat completions: a tool message holds text only', async () => {
    await withFake(startOpenAIChatFake, async (fake) => {
      const url = `${fake.url}/v1/chat/completions`;
      const call = { id: 'c1', type: 'function', function: { name: 'snap', arguments: '{}' } };
      const body = (content: unknown) => ({
        model: 'm',
        stream: true,
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: 'c1', content },
        ],
      });
      const r = await post(
        url,
        body([
          { type: 'text', text: 'shot' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        ]),
      );
      expect(r.status).toBe(400);
      expect(r.text).toContain("Invalid 'messages[2].content[1].type': 'image_url'. Only 'text' content parts are supported for messages with role 'tool'.");
      fake.enqueue({ steps: [{ text: 'ok' }] });
      expect((await post(url, body([{ type: 'text', text: 'shot [image: image/png, 69 B]' }]))).status).toBe(200);
    });
  });

  it('request-level limits: Bedrock 20 images, Anthropic ≤ 2000 px each past 20, Responses 500', async () => {
    const small = pngBase64(100, 100);
    await withFake(startBedrockFake, async (fake) => {
      const url = `${fake.url}/model/m/converse-stream`;
      const body = (n: number) => ({
        toolConfig: { tools: [{ toolSpec: { name: 'snap', inputSchema: { json: {} } } }] },
        messages: [
          { role: 'user', content: [{ text: 'go' }] },
          { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'snap', input: {} } }] },
          { role: 'user', content: [{ toolResult: { toolUseId: 't1', content: [{ text: 'shots' }, ...Array(n).fill({ image: { format: 'png', source: { bytes: small } } })] } }] },
        ],
      });
      const r = await post(url, body(21));
      expect(r.status).toBe(400);
      expect(r.text).toContain('the request holds 21 images; the maximum is 20');
      fake.enqueue({ steps: [{ text: 'ok' }] });
      expect((await post(url, body(20))).status).toBe(200);
    });
    await withFake(startAnthropicFake, async (fake) => {
      const url = `${fake.url}/v1/messages`;
      const image = (data: string) => ({ type: 'image', source: { type: 'base64', media_type: 'image/png', data } });
      const body = (images: object[]) => ({
        model: 'm',
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'snap', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'shots' }, ...images] }] },
        ],
      });
      const large = image(pngBase64(2001, 10));
      let r = await post(url, body([large, ...Array(20).fill(image(small))]), { 'x-api-key': 'k' });
      expect(r.status).toBe(400);
      expect(r.text).toContain('exceed max allowed size for many-image requests: 2000 pixels');
      r = await post(url, body(Array(101).fill(image(small))), { 'x-api-key': 'k' });
      expect(r.text).toContain('too many images in one request: 101 > 100');
      fake.enqueue({ steps: [{ text: 'ok' }] }, { steps: [{ text: 'ok' }] });
      expect((await post(url, body([large, ...Array(19).fill(image(small))]), { 'x-api-key': 'k' })).status).toBe(200);
      expect((await post(url, body(Array(100).fill(image(small))), { 'x-api-key': 'k' })).status).toBe(200);
    });
    await withFake(startOpenAIResponsesFake, async (fake) => {
      const url = `${fake.url}/v1/responses`;
      const body = (n: number) => ({
        model: 'm',
        stream: true,
        input: [
          { type: 'function_call', call_id: 'c1', name: 'snap', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c1', output: Array(n).fill({ type: 'input_image', image_url: `data:image/png;base64,${small}` }) },
        ],
      });
      const r = await post(url, body(501));
      expect(r.status).toBe(400);
      expect(r.text).toContain('too many images in one request (501); the maximum is 500');
      fake.enqueue({ steps: [{ text: 'ok' }] });
      expect((await post(url, body(500))).status).toBe(200);
    });
  });
});
