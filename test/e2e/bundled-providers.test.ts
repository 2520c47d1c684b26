/**
 * The provider SDKs are bundled into lazily loaded chunks of dist/ (scripts/build.mjs). The unit
 * and conformance tests import src/ directly, so only a spawned `bin/keen.js` shows that each
 * bundled SDK still loads and streams: one headless turn per provider against its loopback fake.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startBedrockFake } from '../fakes/bedrock-fake.js';
import { startGeminiFake } from '../fakes/gemini-fake.js';
import { startOpenAIChatFake } from '../fakes/openai-chat-fake.js';
import { startOpenAIResponsesFake, writeFakeCodexAuth } from '../fakes/openai-responses-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { assertBuilt } from './cli-fixtures.js';
import { runKeen } from './harness.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';

interface Case {
  provider: string;
  start: () => Promise<ScriptedServer>;
  env: (url: string, ws: Workspace) => Promise<Record<string, string>>;
}

const CASES: Case[] = [
  { provider: 'openai', start: startOpenAIChatFake, env: async (url) => ({ OPENAI_API_KEY: 'sk-test-bundle', OPENAI_BASE_URL: `${url}/v1` }) },
  { provider: 'openai-responses', start: startOpenAIResponsesFake, env: async (url) => ({ OPENAI_API_KEY: 'sk-test-bundle', OPENAI_BASE_URL: `${url}/v1` }) },
  {
    provider: 'codex',
    start: startOpenAIResponsesFake,
    env: async (url, ws) => {
      const codexHome = path.join(ws.home, 'codex');
      await writeFakeCodexAuth(codexHome);
      return { CODEX_HOME: codexHome, KEEN_CODEX_BASE_URL: url };
    },
  },
  {
    provider: 'bedrock',
    start: startBedrockFake,
    env: async (url) => ({
      AWS_ACCESS_KEY_ID: 'AKIDTEST',
      AWS_SECRET_ACCESS_KEY: 'test-secret',
      AWS_REGION: 'us-east-1',
      AWS_CONFIG_FILE: '/nonexistent/keen-test/aws-config',
      AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/keen-test/aws-credentials',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: url,
    }),
  },
  { provider: 'genkit', start: startGeminiFake, env: async (url) => ({ GEMINI_API_KEY: 'test-gemini-key', GOOGLE_GEMINI_BASE_URL: url }) },
];

describe('bundled provider SDKs', () => {
  assertBuilt();
  const cleanups: (() => unknown)[] = [];
  afterAll(async () => {
    for (const c of cleanups) await c();
  });

  it.each(CASES.map((c) => [c.provider, c] as const))('%s answers one headless turn from dist/', async (_name, c) => {
    const fake = await c.start();
    const ws = tempWorkspace();
    cleanups.push(
      () => fake.close(),
      () => ws.cleanup(),
    );
    fake.enqueue({ steps: [{ text: `hello from the ${c.provider} fake` }] });
    const res = await runKeen(['run', '--provider', c.provider, 'say hello'], { cwd: ws.cwd, home: ws.home, env: await c.env(fake.url, ws) });
    expect(res.stderr).not.toMatch(/Cannot find|ERR_MODULE|Dynamic require/);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(`hello from the ${c.provider} fake`);
    expect(fake.requests.length).toBeGreaterThan(0);
  });

  it('bedrock in record mode records the turn and writes nothing to stderr (the AWS SDK warns when its JSON body is read as a string)', async () => {
    const c = CASES.find((x) => x.provider === 'bedrock')!;
    const fake = await c.start();
    const ws = tempWorkspace();
    cleanups.push(
      () => fake.close(),
      () => ws.cleanup(),
    );
    fake.enqueue({ steps: [{ text: 'recorded answer' }] });
    const dir = path.join(ws.home, 'recordings');
    const res = await runKeen(['run', '--provider', 'bedrock', 'say hello'], { cwd: ws.cwd, home: ws.home, env: { ...(await c.env(fake.url, ws)), KEEN_RECORD: dir } });
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('recorded answer');
    expect(res.stderr).toBe('');
    const [recording] = fs.readdirSync(dir).map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
    expect(recording.provider).toBe('bedrock');
    expect(JSON.stringify(recording.request)).toContain('say hello');
  });
});
