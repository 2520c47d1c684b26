/**
 * Credentials never echo: every credential Keen sends (a provider key, an auth token, Codex
 * access and refresh tokens, AWS secret and session keys, MCP header and env values) is gone from
 * stderr, JSON, stream-json, the transcript and a recording (KEEN_RECORD), in any spelling a
 * service may echo it in (as is, JSON-escaped, percent-encoded; the recording's base64 decoded).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FAKE_AWS_ENV, startBedrockFake } from '../fakes/bedrock-fake.js';
import { startOpenAIChatFake } from '../fakes/openai-chat-fake.js';
import { fakeJwt, startOpenAIResponsesFake, writeFakeCodexAuth } from '../fakes/openai-responses-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { filesUnder, toolResults, useCliRig } from './cli-fixtures.js';
import { runKeen, type RunResult } from './harness.js';
import { tempWorkspace } from '../kit/temp-dir.js';
import { everything, writeUserConfig } from './mcp-fixtures.js';

const { rig, workspace } = useCliRig();
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

/** Every spelling of `secret` a leak could take. */
function spellings(secret: string): string[] {
  return [...new Set([secret, JSON.stringify(secret).slice(1, -1).replaceAll('/', '\\/'), encodeURIComponent(secret)])];
}

/**
 * Everything Keen printed and wrote: stdout, stderr, the sessions (transcripts, artifacts) and the
 * recordings under KEEN_HOME (`rec/`), recordings' response bytes decoded. The config and auth
 * files the test wrote are left out: they hold the credentials by design.
 */
function everythingKeenLeft(r: RunResult, home: string): string {
  const parts = [r.stdout, r.stderr];
  for (const dir of [path.join(home, 'sessions'), path.join(home, 'rec')]) {
    for (const file of filesUnder(dir)) {
      const text = fs.readFileSync(file, 'utf8');
      parts.push(text);
      if (file.endsWith('.json') && text.includes('"response_base64"')) parts.push(Buffer.from(JSON.parse(text).response_base64, 'base64').toString('utf8'));
    }
  }
  return parts.join('\n');
}

function expectNoLeak(text: string, secrets: string[]): void {
  for (const secret of secrets) for (const s of spellings(secret)) expect(text, `leaked ${s}`).not.toContain(s);
}

function recordingsIn(dir: string): { status: number; response: string }[] {
  return filesUnder(dir).map((f) => {
    const rec = JSON.parse(fs.readFileSync(f, 'utf8'));
    return { status: rec.status, response: Buffer.from(rec.response_base64, 'base64').toString('utf8') };
  });
}

async function fake(start: () => Promise<ScriptedServer>): Promise<ScriptedServer> {
  const f = await start();
  cleanups.push(() => f.close());
  return f;
}

describe('credentials never echo', () => {
  it('a Codex 401 quoting the access token and the refresh token (percent-encoded): not in stderr, json, stream-json or the recording', async () => {
    const codex = await fake(startOpenAIResponsesFake);
    const ws = tempWorkspace();
    const codexHome = path.join(ws.home, 'codex');
    const access = fakeJwt({ exp: Math.floor(Date.now() / 1000) + 3600, 'https://api.openai.com/auth': { chatgpt_account_id: 'acct_123' } });
    const refresh = 'rt_e2e+Refresh/Token=9f31';
    await writeFakeCodexAuth(codexHome, { accessToken: access, refreshToken: refresh });
    const record = path.join(ws.home, 'rec');
    const env = { CODEX_HOME: codexHome, KEEN_CODEX_BASE_URL: codex.url, KEEN_RECORD: record };
    const body = `Your token ${access} was rejected (grant_type=refresh_token&refresh_token=${encodeURIComponent(refresh)})`;
    for (const format of ['text', 'json', 'stream-json']) {
      codex.enqueue({ error: { status: 401, type: 'invalid_request_error', message: body } });
      const r = await runKeen(['run', '--provider', 'codex', '--output-format', format, 'hi'], { cwd: ws.cwd, home: ws.home, env });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('Codex rejected the credentials (401)');
      expectNoLeak(everythingKeenLeft(r, ws.home), [access, refresh]);
    }
    const recordings = recordingsIn(record);
    expect(recordings).toHaveLength(3);
    expect(recordings[0].status).toBe(401);
    // The recording still replays as the same error, the credentials replaced.
    expect(recordings[0].response).toContain('Your token [REDACTED] was rejected');
  });

  it('an Anthropic key and an ANTHROPIC_AUTH_TOKEN echoed in an error: not in the output, the transcript or the recording', async () => {
    const ws = workspace();
    const token = 'auth/tok+e2e=5531zz';
    const record = path.join(ws.home, 'rec');
    rig.fake.enqueue({ error: { status: 401, type: 'authentication_error', message: `invalid bearer ${token} (url-encoded: ${encodeURIComponent(token)})` } });
    const r = await rig.keen(ws, ['run', '--output-format', 'stream-json', 'hi'], { env: { ANTHROPIC_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: token, KEEN_RECORD: record } });
    expect(r.code).toBe(1);
    expectNoLeak(everythingKeenLeft(r, ws.home), [token]);
    expect(recordingsIn(record)).toHaveLength(1);

    const key = 'sk-ant-e2e-echoed-KEY-2b7c4d';
    rig.fake.enqueue({ error: { status: 401, type: 'authentication_error', message: `invalid x-api-key: ${key}` } });
    const k = await rig.keen(ws, ['run', '--output-format', 'json', 'hi'], { env: { ANTHROPIC_API_KEY: key, KEEN_RECORD: record } });
    expect(k.code).toBe(1);
    expectNoLeak(everythingKeenLeft(k, ws.home), [key]);
    expect(recordingsIn(record)).toHaveLength(2);
  });

  it('a key an error line was cut in the middle of leaves no part of itself (OpenAI)', async () => {
    const openai = await fake(startOpenAIChatFake);
    const ws = tempWorkspace();
    const key = 'sk-proj-e2e-long-KEY-0123456789abcdefghij';
    // The line is capped to fit a terminal; with two paddings 20 apart one cut lands well inside a key.
    for (const pad of ['', 'p'.repeat(20)]) {
      openai.enqueue({ error: { status: 401, type: 'invalid_request_error', message: `${pad}${Array(20).fill(key).join(' ')}` } });
      const r = await runKeen(['run', '--provider', 'openai', '--output-format', 'json', 'hi'], {
        cwd: ws.cwd,
        home: ws.home,
        env: { OPENAI_API_KEY: key, OPENAI_BASE_URL: `${openai.url}/v1` },
      });
      expect(r.code).toBe(1);
      expect(JSON.parse(r.stdout).error.message).toMatch(/…$/);
      expect(r.stdout + r.stderr).not.toContain(key.slice(0, 12));
    }
  });

  it('an AWS secret key and session token echoed by Bedrock: not in the output or the recording', async () => {
    const bedrock = await fake(startBedrockFake);
    const ws = tempWorkspace();
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    const session = 'IQoJb3JpZ2luX2VjE+e2e/session=token0042';
    const record = path.join(ws.home, 'rec');
    bedrock.enqueue({ error: { status: 403, type: 'UnrecognizedClientException', message: `The security token included in the request is invalid: ${session} / ${secret}` } });
    const r = await runKeen(['run', '--provider', 'bedrock', '--output-format', 'json', 'hi'], {
      cwd: ws.cwd,
      home: ws.home,
      env: { ...FAKE_AWS_ENV, AWS_SECRET_ACCESS_KEY: secret, AWS_SESSION_TOKEN: session, AWS_ENDPOINT_URL_BEDROCK_RUNTIME: bedrock.url, KEEN_RECORD: record },
    });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).is_error).toBe(true);
    expectNoLeak(everythingKeenLeft(r, ws.home), [secret, session]);
    expect(recordingsIn(record).length).toBeGreaterThan(0);
  });

  it('an MCP env value a server echoes: not in stream-json, the transcript or the next model request', async () => {
    const ws = workspace();
    const value = 'mcp-env-Secret-8d21e0aa';
    writeUserConfig(ws.home, { mcpServers: { ev: { ...everything(), env: { SERVICE_TOKEN: value } } } });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'mcp__ev__get-env', args: {} } }] }, { steps: [{ text: 'env seen' }] });
    const r = await rig.keen(ws, ['run', '--output-format', 'stream-json', 'env'], { env: { KEEN_RECORD: path.join(ws.home, 'rec') } });
    expect(r.code).toBe(0);
    const [result] = toolResults(rig.fake.requests[from + 1]);
    expect(JSON.parse(result.text).SERVICE_TOKEN).toBe('[REDACTED]');
    expectNoLeak(everythingKeenLeft(r, ws.home), [value]);
  });

  it('an MCP header value an HTTP server echoes in its 401: not in the warning line', async () => {
    const header = 'hdr-Secret-e2e-77aa01';
    const server = http.createServer((req, res) => {
      req.resume();
      res.writeHead(401, { 'content-type': 'text/plain' }).end(`unknown key ${req.headers['x-api-key']}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    const ws = workspace();
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    writeUserConfig(ws.home, { mcpServers: { remote: { type: 'http', url, headers: { 'X-Api-Key': header } } } });
    rig.fake.enqueue({ steps: [{ text: 'no tools' }] });
    const r = await rig.keen(ws, ['run', '--output-format', 'json', 'hi']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/MCP server "?remote"?/);
    expectNoLeak(everythingKeenLeft(r, ws.home), [header]);
  });
});
