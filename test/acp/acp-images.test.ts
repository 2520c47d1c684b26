/**
 * Images over ACP, end to end: the SDK's client side drives a spawned `keen acp` against the
 * Anthropic fake. `initialize` advertises `promptCapabilities.image` only when the configured
 * model takes images; an `image` block of `session/prompt` reaches the request as an image block;
 * with a text-only model, or bytes that are not their declared type, the prompt fails with one
 * line and nothing is sent.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, FAKE_KEY } from '../e2e/cli-fixtures.js';
import { cleanEnv, KEEN_BIN } from '../e2e/harness.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { pngBase64 } from '../kit/png-bytes.js';

let fake: ScriptedServer;
const spaces: Workspace[] = [];
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  assertBuilt();
  fake = await startAnthropicFake();
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});
afterAll(async () => {
  await fake.close();
  for (const ws of spaces) ws.cleanup();
});

/** A spawned `keen acp` (extra args), initialized; its `initialize` answer. */
async function editor(ws: Workspace, args: string[] = []): Promise<{ agent: acp.ClientContext; init: acp.InitializeResponse }> {
  const child: ChildProcess = spawn(process.execPath, [KEEN_BIN, 'acp', ...args], {
    cwd: ws.cwd,
    env: cleanEnv({ ANTHROPIC_API_KEY: FAKE_KEY, ANTHROPIC_BASE_URL: fake.url, KEEN_HOME: ws.home, HOME: ws.home }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  closers.push(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin!.end();
      await exited;
    }
  });
  const app = acp
    .client({ name: 'test-editor' })
    .onNotification(acp.methods.client.session.update, () => undefined)
    .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: 'cancelled' } }));
  const connection = app.connect(acp.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>));
  const init = await connection.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  return { agent: connection.agent, init };
}

function workspace(): Workspace {
  const ws = tempWorkspace();
  spaces.push(ws);
  return ws;
}

const PNG = pngBase64(20, 10);
const imagePrompt = (data: string, mimeType = 'image/png'): acp.ContentBlock[] => [
  { type: 'image', mimeType, data },
  { type: 'text', text: 'what is on this screenshot?' },
];

describe('keen acp: images', () => {
  it('advertises image prompts and sends an image block to the model', async () => {
    const ws = workspace();
    const { agent, init } = await editor(ws);
    expect(init.agentCapabilities?.promptCapabilities?.image).toBe(true);
    const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: ws.cwd, mcpServers: [] });
    fake.enqueue({ steps: [{ text: 'A grey bar.' }] });
    const from = fake.requests.length;
    const r = await agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: imagePrompt(PNG) });
    expect(r.stopReason).toBe('end_turn');
    const user = fake.requests[from].body.messages.at(-1);
    expect(user.content[0]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } });
    expect(user.content[1]).toMatchObject({ type: 'text', text: 'what is on this screenshot?' });

    // Bytes that are not their declared type: one line, no request.
    const before = fake.requests.length;
    await expect(agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: imagePrompt(PNG, 'image/jpeg') })).rejects.toThrow(
      /cannot send image 1, which is declared image\/jpeg but its bytes are image\/png/,
    );
    expect(fake.requests).toHaveLength(before);
  });

  it('a model that takes no images: no image capability, and an image prompt is refused in one line', async () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ models: { 'text-only': { provider: 'anthropic', id: 'claude-text', images: false } } }));
    const { agent, init } = await editor(ws, ['--model', 'text-only']);
    expect(init.agentCapabilities?.promptCapabilities?.image).toBe(false);
    const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: ws.cwd, mcpServers: [] });
    const before = fake.requests.length;
    await expect(agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: imagePrompt(PNG) })).rejects.toThrow(
      /cannot send image content: model text-only takes no images/,
    );
    expect(fake.requests).toHaveLength(before);
  });
});
