/**
 * Network set-ups: an HTTP(S) proxy from HTTPS_PROXY / HTTP_PROXY (NO_PROXY honoured) and
 * Anthropic bearer tokens (ANTHROPIC_AUTH_TOKEN), by spawning bin/keen.js against the fake
 * through a real CONNECT proxy on loopback.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startBedrockFake } from '../fakes/bedrock-fake.js';
import { startGeminiFake } from '../fakes/gemini-fake.js';
import { startOpenAIResponsesFake, writeFakeCodexAuth } from '../fakes/openai-responses-fake.js';
import { errorLines, filesUnder, toolResults, useCliRig } from './cli-fixtures.js';
import { startConnectProxy, useConnectProxy } from '../fakes/connect-proxy.js';

const { rig, workspace } = useCliRig();

const proxy = useConnectProxy();

describe('proxies', () => {
  it('HTTPS_PROXY routes the provider request through the proxy', async () => {
    proxy.tunnels.length = 0;
    rig.fake.enqueue({ steps: [{ text: 'via proxy' }] });
    const r = await rig.keen(workspace(), ['run', 'hi'], { env: { HTTPS_PROXY: proxy.url } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('via proxy\n');
    expect(proxy.tunnels).toEqual([new URL(rig.fake.url).host]);
  });

  it('NO_PROXY for the host bypasses it', async () => {
    proxy.tunnels.length = 0;
    rig.fake.enqueue({ steps: [{ text: 'direct' }] });
    const r = await rig.keen(workspace(), ['run', 'hi'], { env: { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' } });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.tunnels).toEqual([]);
  });
});

describe('a proxy that refuses the tunnel', () => {
  it('keen run fails with one line naming the proxy (not its credentials) and its answer', async () => {
    const refusing = await startConnectProxy({ answer: '407 Proxy Authentication Required' });
    try {
      const withUser = refusing.url.replace('http://', 'http://alice:hunter2@');
      const r = await rig.keen(workspace(), ['run', 'hi'], { env: { HTTPS_PROXY: withUser, KEEN_MAX_RETRIES: '0' } });
      expect(r.code).not.toBe(0);
      expect(errorLines(r.stderr)).toHaveLength(1);
      expect(r.stderr).toContain(`proxy ${refusing.url} refused the tunnel to ${new URL(rig.fake.url).host}: 407 Proxy Authentication Required`);
      expect(r.stderr).not.toMatch(/hunter2|alice/);
      expect(refusing.tunnels).toEqual([new URL(rig.fake.url).host]);
    } finally {
      await refusing.close();
    }
  });

  it('a refusal retrying cannot change (407) is not retried: one CONNECT, no retry notice; a busy proxy (503) is retried', async () => {
    const refusing = await startConnectProxy({ answer: '407 Proxy Authentication Required' });
    const busy = await startConnectProxy({ answer: '503 Service Unavailable' });
    try {
      const r = await rig.keen(workspace(), ['run', 'hi'], { env: { HTTPS_PROXY: refusing.url, KEEN_MAX_RETRIES: '2' } });
      expect(r.code).not.toBe(0);
      expect(r.stderr).not.toMatch(/retrying/);
      expect(refusing.tunnels).toHaveLength(1);
      const b = await rig.keen(workspace(), ['run', 'hi'], { env: { HTTPS_PROXY: busy.url, KEEN_MAX_RETRIES: '1' } });
      expect(b.code).not.toBe(0);
      expect(b.stderr).toMatch(/retrying in/);
      expect(busy.tunnels).toHaveLength(2);
    } finally {
      await refusing.close();
      await busy.close();
    }
  });
});

describe('a proxy that never answers', () => {
  it('keen run fails at the connect limit with one line and exits, though the proxy keeps the socket open', async () => {
    let accepted = 0;
    const silent = net.createServer(() => void accepted++); // accepts, never answers CONNECT, never closes
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      // A short limit (KEEN_CONNECT_TIMEOUT_MS) stands for the default 10 s: the same timer, not the
      // SDK's 10 minutes, and keen exits though the socket stays open (else the test times out).
      const env = { HTTPS_PROXY: `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`, KEEN_MAX_RETRIES: '0', KEEN_CONNECT_TIMEOUT_MS: '500' };
      const r = await rig.keen(workspace(), ['run', 'hi'], { env });
      expect(r.code).not.toBe(0);
      expect(errorLines(r.stderr)).toHaveLength(1);
      expect(r.stderr).toMatch(/could not connect to 127\.0\.0\.1:\d+ within 500 ms/);
      expect(accepted).toBe(1);
    } finally {
      silent.close();
    }
  });
});

describe('proxies for Bedrock (Node http stack)', () => {
  it('HTTPS_PROXY proxy.tunnels the Bedrock request; NO_PROXY exempts it', async () => {
    const bedrock = await startBedrockFake();
    try {
      const env = {
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
        AWS_SECRET_ACCESS_KEY: 'secret-example',
        AWS_ENDPOINT_URL_BEDROCK_RUNTIME: bedrock.url,
        HTTPS_PROXY: proxy.url,
      };
      proxy.tunnels.length = 0;
      bedrock.enqueue({ steps: [{ text: 'bedrock via proxy' }] }, { steps: [{ text: 'bedrock direct' }] });
      const a = await rig.keen(workspace(), ['run', '--provider', 'bedrock', 'hi'], { env });
      expect(a.code, a.stderr).toBe(0);
      expect(a.stdout).toBe('bedrock via proxy\n');
      expect(proxy.tunnels).toEqual([new URL(bedrock.url).host]);
      proxy.tunnels.length = 0;
      const b = await rig.keen(workspace(), ['run', '--provider', 'bedrock', 'hi'], { env: { ...env, NO_PROXY: 'localhost,127.0.0.1' } });
      expect(b.stdout).toBe('bedrock direct\n');
      expect(proxy.tunnels).toEqual([]);
    } finally {
      await bedrock.close();
    }
  });
});

describe('proxies for Genkit (its plugin calls the global fetch)', () => {
  it('HTTPS_PROXY proxy.tunnels the Gemini request; NO_PROXY exempts it', async () => {
    const gemini = await startGeminiFake();
    try {
      const env = { GEMINI_API_KEY: 'test-gemini-key', GOOGLE_GEMINI_BASE_URL: gemini.url, HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url };
      proxy.tunnels.length = 0;
      gemini.enqueue({ steps: [{ text: 'gemini via proxy' }] }, { steps: [{ text: 'gemini direct' }] });
      const a = await rig.keen(workspace(), ['run', '--provider', 'genkit', 'hi'], { env });
      expect(a.code, a.stderr).toBe(0);
      expect(a.stdout).toBe('gemini via proxy\n');
      expect(proxy.tunnels).toContain(new URL(gemini.url).host);
      proxy.tunnels.length = 0;
      const b = await rig.keen(workspace(), ['run', '--provider', 'genkit', 'hi'], { env: { ...env, NO_PROXY: '127.0.0.1' } });
      expect(b.stdout).toBe('gemini direct\n');
      expect(proxy.tunnels).toEqual([]);
    } finally {
      await gemini.close();
    }
  });
});

describe('proxies for Codex', () => {
  it('HTTPS_PROXY tunnels the Codex request (it used to go direct unless record mode was on)', async () => {
    const codex = await startOpenAIResponsesFake();
    try {
      const ws = workspace();
      const codexHome = path.join(ws.home, 'codex');
      await writeFakeCodexAuth(codexHome);
      proxy.tunnels.length = 0;
      codex.enqueue({ steps: [{ text: 'codex via proxy' }] });
      const r = await rig.keen(ws, ['run', '--provider', 'codex', 'hi'], {
        env: { CODEX_HOME: codexHome, KEEN_CODEX_BASE_URL: codex.url, HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('codex via proxy\n');
      expect(proxy.tunnels).toEqual([new URL(codex.url).host]);
    } finally {
      await codex.close();
    }
  });
});

describe('ANTHROPIC_AUTH_TOKEN', () => {
  const TOKEN = 'bearer-e2e-TOKEN-51c0ffee';

  it('is sent as a bearer token when no API key is set, and is kept out of commands and transcripts', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'bash', args: { command: 'echo "token=[$ANTHROPIC_AUTH_TOKEN]"' } } }] }, { steps: [{ text: `done ${TOKEN}` }] });
    const r = await rig.keen(ws, ['run', '--yolo', 'print the token'], { env: { ANTHROPIC_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: TOKEN } });
    expect(r.code, r.stderr).toBe(0);
    const [req, second] = rig.since(from);
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers['x-api-key']).toBeUndefined();
    expect(toolResults(second)[0].text).toContain('token=[]');
    const saved = filesUnder(path.join(ws.home, 'sessions'))
      .map((f) => fs.readFileSync(f, 'utf8'))
      .join('\n');
    expect(saved).toContain('done');
    expect(saved).not.toContain(TOKEN);
  });
});
