/**
 * Images over ACP, end to end: the SDK's client side drives a spawned `keen acp` against the
 * Anthropic fake. `initialize` advertises `promptCapabilities.image` only when the configured
 * model takes images; an `image` block of `session/prompt` reaches the request as an image block;
 * with a text-only model, or bytes that are not their declared type, the prompt fails with one
 * line and nothing is sent.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';
import { pngBase64 } from '../kit/png-bytes.js';
import { editorSuite } from './editor-client.js';

const suite = editorSuite();

/** A spawned `keen acp` (extra args), initialized; its `initialize` answer. */
async function editor(ws: Workspace, args: string[] = []): Promise<{ agent: acp.ClientContext; init: acp.InitializeResponse }> {
  const e = await suite.editor(ws, { args });
  return { agent: e.agent, init: e.initialized };
}

const PNG = pngBase64(20, 10);
const imagePrompt = (data: string, mimeType = 'image/png'): acp.ContentBlock[] => [
  { type: 'image', mimeType, data },
  { type: 'text', text: 'what is on this screenshot?' },
];

describe('keen acp: images', () => {
  it('advertises image prompts and sends an image block to the model', async () => {
    const ws = tempWorkspace();
    const { agent, init } = await editor(ws);
    expect(init.agentCapabilities?.promptCapabilities?.image).toBe(true);
    const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: ws.cwd, mcpServers: [] });
    suite.fake.enqueue({ steps: [{ text: 'A grey bar.' }] });
    const from = suite.fake.requests.length;
    const r = await agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: imagePrompt(PNG) });
    expect(r.stopReason).toBe('end_turn');
    const user = suite.fake.requests[from].body.messages.at(-1);
    expect(user.content[0]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } });
    expect(user.content[1]).toMatchObject({ type: 'text', text: 'what is on this screenshot?' });

    // Bytes that are not their declared type: one line, no request.
    const before = suite.fake.requests.length;
    await expect(agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: imagePrompt(PNG, 'image/jpeg') })).rejects.toThrow(
      /cannot send image 1, which is declared image\/jpeg but its bytes are image\/png/,
    );
    expect(suite.fake.requests).toHaveLength(before);
  });

  it('a model that takes no images: no image capability, and an image prompt is refused in one line', async () => {
    const ws = tempWorkspace();
    fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ models: { 'text-only': { provider: 'anthropic', id: 'claude-text', images: false } } }));
    const { agent, init } = await editor(ws, ['--model', 'text-only']);
    expect(init.agentCapabilities?.promptCapabilities?.image).toBe(false);
    const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: ws.cwd, mcpServers: [] });
    const before = suite.fake.requests.length;
    await expect(agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: imagePrompt(PNG) })).rejects.toThrow(
      /cannot send image content: model text-only takes no images/,
    );
    expect(suite.fake.requests).toHaveLength(before);
  });
});
