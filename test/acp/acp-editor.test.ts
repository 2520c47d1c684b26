/**
 * `keen acp` with what the editor brings: auth methods, its file buffers (`fs/*`), its terminals
 * (`terminal/*`), its MCP servers and model selection. The ACP SDK's client side drives a spawned
 * `bin/keen.js acp` against the Anthropic wire fake.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, FAKE_KEY } from '../e2e/cli-fixtures.js';
import { makeWorkspace, type Workspace } from '../e2e/harness.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { type Editor, type EditorOptions, startEditor } from './editor-client.js';

let fake: ScriptedServer;
const spaces: Workspace[] = [];
const editors: Editor[] = [];

beforeAll(async () => {
  assertBuilt();
  fake = await startAnthropicFake();
});
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.close()));
});
afterAll(async () => {
  await fake.close();
  for (const ws of spaces) ws.cleanup();
});

function workspace(files: Record<string, string> = {}): Workspace {
  const ws = makeWorkspace(files);
  spaces.push(ws);
  return ws;
}

async function editor(ws: Workspace, opts: Omit<EditorOptions, 'fakeUrl'> = {}): Promise<Editor> {
  const e = await startEditor(ws, { ...opts, fakeUrl: fake.url });
  editors.push(e);
  return e;
}

const newSession = (e: Editor, ws: Workspace, mcpServers: acp.McpServer[] = []) => e.agent.request(acp.methods.agent.session.new, { cwd: ws.cwd, mcpServers });

describe('auth methods', () => {
  it('names one method per configured provider; authenticate checks the credential without echoing it', async () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ models: { gpt: { provider: 'codex', id: 'gpt-5-codex' } } }));
    const e = await editor(ws);
    expect(e.initialized.authMethods?.map((m) => m.name)).toEqual(['Anthropic API key (ANTHROPIC_API_KEY)', 'ChatGPT login (keen login codex)']);
    expect(await e.agent.request(acp.methods.agent.authenticate, { methodId: 'anthropic-api-key' })).toEqual({});
    await expect(e.agent.request(acp.methods.agent.authenticate, { methodId: 'codex-login' })).rejects.toThrow(/Authentication required: no ChatGPT login: run `keen login codex`/);
    await expect(e.agent.request(acp.methods.agent.authenticate, { methodId: 'nope' })).rejects.toThrow(/unknown auth method "nope"; choose one of anthropic-api-key, codex-login/);
    expect(e.stdout()).not.toContain(FAKE_KEY);
  });

  it('without a key, authenticate and session/new answer "authentication required" naming the variable', async () => {
    const ws = workspace();
    const e = await editor(ws, { env: { ANTHROPIC_API_KEY: undefined } });
    await expect(e.agent.request(acp.methods.agent.authenticate, { methodId: 'anthropic-api-key' })).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining('ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN is not set'),
    });
    await expect(newSession(e, ws)).rejects.toMatchObject({ code: -32000, message: expect.stringContaining('ANTHROPIC_API_KEY') });
  });
});
