import { readdir, readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { KeenError } from '../../src/errors.js';
import type { ChatRequest, ProviderConversation } from '../../src/core/provider.js';
import { createCodexAdapter } from '../../src/providers/openai-codex.js';
import type { ProviderSettings } from '../../src/providers/types.js';
import { fakeJwt, startFakeOAuthServer, startOpenAIResponsesFake, writeFakeCodexAuth } from '../fakes/openai-responses-fake.js';
import { tempDir } from '../kit/temp-dir.js';
import { turn, last } from '../kit/events.js';

const fake = await startOpenAIResponsesFake();
const oauth = await startFakeOAuthServer();
afterAll(async () => {
  await fake.close();
  await oauth.close();
});

let keenHome: string;
let codexHome: string;
beforeEach(async () => {
  fake.requests.length = 0;
  oauth.requests.length = 0;
  keenHome = tempDir('keen-home-');
  codexHome = tempDir('codex-home-');
});

const AUTH_CLAIM = { 'https://api.openai.com/auth': { chatgpt_account_id: 'acct_123' } };
const validAccess = () => fakeJwt({ exp: Math.floor(Date.now() / 1000) + 3600, ...AUTH_CLAIM, kind: 'valid' });
const expiredAccess = () => fakeJwt({ exp: Math.floor(Date.now() / 1000) - 600, ...AUTH_CLAIM, kind: 'expired' });

const writeCodexCliAuth = (accessToken: string, refreshToken = 'refresh-old-cli') => writeFakeCodexAuth(codexHome, { accessToken, refreshToken });

function settings(): ProviderSettings {
  return {
    model: 'gpt-5-codex',
    maxRetries: 0,
    home: keenHome,
    env: { CODEX_HOME: codexHome, KEEN_CODEX_BASE_URL: `${fake.url}/backend-api/codex`, KEEN_CODEX_AUTH_URL: oauth.url },
  };
}

const TOOLS = [{ name: 'read_file', description: 'Read a file', input_schema: { type: 'object' } }];
const REQUEST: ChatRequest = {
  model: 'gpt-5-codex',
  messages: [
    { role: 'system', content: 'You are Keen.' },
    { role: 'user', content: 'hi' },
  ],
  tools: TOOLS,
  maxOutputTokens: 1000,
};

async function open(): Promise<ProviderConversation> {
  return (await createCodexAdapter(settings())).open(REQUEST);
}

/** Every file under `dir` with its text. */
async function filesUnder(dir: string): Promise<{ path: string; text: string }[]> {
  const out: { path: string; text: string }[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out.push({ path, text: await readFile(path, 'utf8') });
  }
  return out;
}

describe('codex adapter', () => {
  it('uses the Codex CLI login and sends instructions + input to the Codex endpoint', async () => {
    const access = validAccess();
    await writeCodexCliAuth(access);
    fake.enqueue({ steps: [{ text: 'hello' }] });
    const events = await turn(await open());
    expect(last(events)).toMatchObject({ type: 'turn_end', message: { content: 'hello' } });
    const req = fake.requests[0];
    expect(req.path).toBe('/backend-api/codex/responses');
    expect(req.headers.authorization).toBe(`Bearer ${access}`);
    expect(req.headers['chatgpt-account-id']).toBe('acct_123');
    expect(req.headers['openai-beta']).toBe('responses=experimental');
    expect(req.body).toMatchObject({ model: 'gpt-5-codex', instructions: 'You are Keen.', stream: true, store: false, include: ['reasoning.encrypted_content'] });
    expect(req.body.input).toEqual([{ type: 'message', role: 'user', content: 'hi' }]);
    expect(req.body).not.toHaveProperty('max_output_tokens');
    expect(oauth.requests).toHaveLength(0);
  });

  it('refreshes an expired token, uses it, and writes it back to the Codex CLI file only', async () => {
    await writeCodexCliAuth(expiredAccess(), 'refresh-old-cli');
    fake.enqueue({ steps: [{ text: 'fresh' }] });
    const events = await turn(await open());
    expect(last(events)).toMatchObject({ type: 'turn_end' });
    expect(oauth.requests).toHaveLength(1);
    expect(oauth.requests[0].body).toMatchObject({ grant_type: 'refresh_token', refresh_token: 'refresh-old-cli', client_id: 'app_EMoamEEZ73f0CkXaXp7hrann' });
    const saved = JSON.parse(await readFile(join(codexHome, 'auth.json'), 'utf8'));
    expect(fake.requests[0].headers.authorization).toBe(`Bearer ${saved.tokens.access_token}`);
    expect(saved.tokens.refresh_token).toMatch(/^refresh-new-/);
    expect(saved.auth_mode).toBe('chatgpt');
    expect((await stat(join(codexHome, 'auth.json'))).mode & 0o777).toBe(0o600);
    expect(await filesUnder(keenHome)).toEqual([]);
  });

  it("prefers Keen's own auth.json and keeps every token inside it", async () => {
    await writeCodexCliAuth(validAccess(), 'refresh-cli');
    await mkdir(keenHome, { recursive: true });
    const keenAccess = expiredAccess();
    await writeFile(join(keenHome, 'auth.json'), JSON.stringify({ codex: { tokens: { access_token: keenAccess, refresh_token: 'refresh-keen', account_id: 'acct_keen' } } }), {
      mode: 0o600,
    });
    fake.enqueue({ steps: [{ thinking: 'hm', signature: 'ENC' }, { toolCall: { id: 'c1', name: 'read_file', args: {} } }] }, { steps: [{ text: 'done' }] });
    const conv = await open();
    await turn(conv);
    conv.appendToolResults([{ role: 'tool', tool_call_id: 'c1', name: 'read_file', content: 'R' }]);
    await turn(conv);
    expect(oauth.requests[0].body.refresh_token).toBe('refresh-keen');
    expect(fake.requests[0].headers['chatgpt-account-id']).toBe('acct_keen');
    const keenFile = JSON.parse(await readFile(join(keenHome, 'auth.json'), 'utf8'));
    const tokens = [keenAccess, 'refresh-keen', keenFile.codex.tokens.access_token, keenFile.codex.tokens.refresh_token];
    for (const f of await filesUnder(keenHome)) {
      if (f.path === join(keenHome, 'auth.json')) continue;
      for (const t of tokens) expect(f.text).not.toContain(t);
    }
    expect((await stat(join(keenHome, 'auth.json'))).mode & 0o777).toBe(0o600);
    // Codex keeps nothing server-side: items are replayed without ids, reasoning with its encrypted content.
    expect(fake.requests[1].body.input).toEqual([
      { type: 'message', role: 'user', content: 'hi' },
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'hm' }], encrypted_content: 'ENC' },
      { type: 'function_call', call_id: 'c1', name: 'read_file', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: 'R' },
    ]);
  });

  it('rebuilds instructions and input from a compaction replacement', async () => {
    await writeCodexCliAuth(validAccess());
    fake.enqueue({ steps: [{ text: 'one' }] }, { steps: [{ text: 'two' }] });
    const conv = await open();
    await turn(conv);
    conv.replaceHistory([
      { role: 'system', content: 'Fresh system.' },
      { role: 'user', content: '<compacted_context>S</compacted_context>' },
    ]);
    await turn(conv);
    expect(fake.requests[1].body.instructions).toBe('Fresh system.');
    expect(fake.requests[1].body.input).toEqual([{ type: 'message', role: 'user', content: '<compacted_context>S</compacted_context>' }]);
  });

  it('tells the user to run `keen login codex` when no login exists', async () => {
    await expect(createCodexAdapter(settings())).rejects.toBeInstanceOf(KeenError);
    await expect(createCodexAdapter(settings())).rejects.toThrow(/keen login codex/);
  });

  it('reports a failed refresh as an auth error without any token in it', async () => {
    await writeCodexCliAuth(expiredAccess(), 'refresh-secret-value');
    oauth.respond(() => ({ status: 400, body: { error: 'invalid_grant', error_description: 'refresh token refresh-secret-value already used' } }));
    try {
      const events = await turn(await open());
      const e = last(events);
      expect(e).toMatchObject({ type: 'error', error: { kind: 'auth' } });
      expect(e.type === 'error' && e.error.message).toMatch(/keen login codex/);
      expect(e.type === 'error' && e.error.message).not.toContain('refresh-secret-value');
      expect(fake.requests).toHaveLength(0);
    } finally {
      oauth.respond(undefined);
    }
  });

  it('maps a 401 from the backend to auth with the login hint', async () => {
    await writeCodexCliAuth(validAccess());
    fake.enqueue({ error: { status: 401, message: 'Your authentication token has expired.' } });
    const e = last(await turn(await open()));
    expect(e).toMatchObject({ type: 'error', error: { kind: 'auth', status: 401 } });
    expect(e.type === 'error' && e.error.message).toMatch(/keen login codex/);
  });
});
