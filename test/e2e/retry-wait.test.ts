/**
 * Retry waits are capped and interruptible on every provider: a server asking for a day makes
 * Keen give up at once with one line naming the wait; a wait within the cap is announced on
 * stderr (and as a stream-json event) and Ctrl+C ends it. The waits interrupted are an hour long
 * (the cap raised to allow them): the run ends under the test timeout only if Ctrl+C ends it. Anthropic and OpenAI ask with
 * `retry-after`, Gemini with `google.rpc.RetryInfo` in its error body; Bedrock's throttling is
 * retried by Keen, not the AWS SDK, and announced the same way.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamEventSchema } from '../../src/cli/headless/stream-schema.js';
import { startBedrockFake } from '../fakes/bedrock-fake.js';
import { startGeminiFake } from '../fakes/gemini-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { errorLines, useCliRig } from './cli-fixtures.js';
import { cleanEnv, KEEN_BIN } from './harness.js';
import type { Workspace } from '../kit/temp-dir.js';

const { workspace } = useCliRig();

let server: http.Server;
let url = '';
let retryAfter = '86400';
let hits = 0;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    hits++;
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': retryAfter });
    res.end(JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** A workspace whose config lets Keen wait an hour before a retry. */
function patientWorkspace(): Workspace {
  const ws = workspace();
  fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ maxRetryWait: 7200 }));
  return ws;
}

const PROVIDERS = [
  { name: 'anthropic', env: () => ({ ANTHROPIC_API_KEY: 'k-retry-test', ANTHROPIC_BASE_URL: url }) },
  { name: 'openai', env: () => ({ OPENAI_API_KEY: 'k-retry-test', OPENAI_BASE_URL: `${url}/v1` }) },
  { name: 'openai-responses', env: () => ({ OPENAI_API_KEY: 'k-retry-test', OPENAI_BASE_URL: `${url}/v1` }) },
];

function run(ws: Workspace, provider: string, env: Record<string, string>, onStderr?: (text: string, kill: (s: NodeJS.Signals) => void) => void, args: string[] = []) {
  return new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
    const child = spawn(process.execPath, [KEEN_BIN, 'run', '--provider', provider, ...args, 'hi'], {
      cwd: ws.cwd,
      env: cleanEnv({ KEEN_HOME: ws.home, ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
      onStderr?.(stderr, (s) => child.kill(s));
    });
    child.on('close', (code) => resolve({ code, stderr, stdout }));
  });
}

describe('retry waits', () => {
  for (const p of PROVIDERS) {
    it(`${p.name}: retry-after 86400 gives up at once with one line naming the wait`, async () => {
      const ws = workspace();
      retryAfter = '86400';
      hits = 0;
      const r = await run(ws, p.name, p.env());
      expect(r.code).toBe(1);
      expect(hits).toBe(1);
      const lines = errorLines(r.stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('asked to wait 86400 s');
      expect(lines[0]).toContain('maxRetryWait');
    });

    it(`${p.name}: an hour's wait is announced and Ctrl+C ends it`, async () => {
      const ws = patientWorkspace();
      retryAfter = '3600';
      hits = 0;
      let announced = false;
      const r = await run(ws, p.name, p.env(), (text, kill) => {
        if (!announced && /retrying in 3600 s/.test(text)) {
          announced = true;
          kill('SIGINT');
        }
      });
      expect(announced).toBe(true);
      expect(r.code).toBe(130);
      expect(hits).toBe(1);
      expect(r.stderr).toMatch(/keen: 127\.0\.0\.1:\d+ answered 429; retrying in 3600 s \(retry 1 of 2; Ctrl\+C stops\)/);
    });
  }
});

describe('Gemini retry hints', () => {
  let gemini: ScriptedServer;
  beforeAll(async () => {
    gemini = await startGeminiFake();
  });
  afterAll(() => gemini.close());
  const env = () => ({ GEMINI_API_KEY: 'test-gemini-key', GOOGLE_GEMINI_BASE_URL: gemini.url });
  const quota = (retryDelay: string) => ({ error: { status: 429, message: 'You exceeded your current quota, please check your plan and billing details.', retryDelay } });

  it('a RetryInfo retryDelay of 3600.4s is announced (stderr and stream-json) and Ctrl+C ends it', async () => {
    const ws = patientWorkspace();
    gemini.requests.length = 0;
    gemini.setResponder(() => quota('3600.4s'));
    let announced = false;
    const r = await run(
      ws,
      'genkit',
      env(),
      (text, kill) => {
        if (!announced && /retrying in 3600 s/.test(text)) {
          announced = true;
          kill('SIGINT');
        }
      },
      ['--output-format', 'stream-json'],
    );
    expect(announced).toBe(true);
    expect(r.code).toBe(130);
    expect(gemini.requests).toHaveLength(1);
    expect(r.stderr).toMatch(/keen: 127\.0\.0\.1:\d+ answered 429; retrying in 3600 s \(retry 1 of 2; Ctrl\+C stops\)/);
    const events = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => streamEventSchema.parse(JSON.parse(l)));
    expect(events.filter((e) => e.type === 'retry_wait')).toEqual([{ type: 'retry_wait', host: new URL(gemini.url).host, status: 429, wait_ms: 3_600_400, retry: 1, of: 2 }]);
  });

  it('a retryDelay of a day gives up at once with one line naming the wait', async () => {
    const ws = workspace();
    gemini.requests.length = 0;
    gemini.setResponder(() => quota('86400s'));
    const r = await run(ws, 'genkit', env());
    expect(r.code).toBe(1);
    expect(gemini.requests).toHaveLength(1);
    const lines = errorLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('asked to wait 86400 s');
    expect(lines[0]).toContain('maxRetryWait');
  });
});

describe('Bedrock retries', () => {
  let bedrock: ScriptedServer;
  beforeAll(async () => {
    bedrock = await startBedrockFake();
  });
  afterAll(() => bedrock.close());

  it('throttling is announced like every provider, and maxRetries counts it', async () => {
    const ws = workspace();
    bedrock.setResponder(() => ({ error: { status: 429, type: 'ThrottlingException', message: 'Too many requests, please wait before trying again.' } }));
    const r = await run(ws, 'bedrock', {
      AWS_ACCESS_KEY_ID: 'AKIAFAKEFAKEFAKE',
      AWS_SECRET_ACCESS_KEY: 'test-secret',
      AWS_REGION: 'us-east-1',
      AWS_CONFIG_FILE: '/nonexistent/keen-test/aws-config',
      AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/keen-test/aws-credentials',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: bedrock.url,
      KEEN_MAX_RETRIES: '1',
    });
    expect(r.code).toBe(1);
    expect(bedrock.requests).toHaveLength(2);
    const lines = errorLines(r.stderr);
    expect(lines[0]).toMatch(/^keen: 127\.0\.0\.1:\d+ answered 429; retrying in [\d.]+ s \(retry 1 of 1; Ctrl\+C stops\)$/);
    expect(lines[1]).toMatch(/^keen: Bedrock is throttling requests .*after 2 attempts/);
    expect(lines).toHaveLength(2);
  });
});
