/**
 * `retry-after` is capped and interruptible on every provider that goes through Keen's fetch:
 * a server asking for a day makes Keen give up at once with one line naming the wait; a
 * shorter wait is announced on stderr and Ctrl+C ends it within a second.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorLines, useCliRig } from './cli-fixtures.js';
import { cleanEnv, KEEN_BIN, type Workspace } from './harness.js';

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

const PROVIDERS = [
  { name: 'anthropic', env: () => ({ ANTHROPIC_API_KEY: 'k-retry-test', ANTHROPIC_BASE_URL: url }) },
  { name: 'openai', env: () => ({ OPENAI_API_KEY: 'k-retry-test', OPENAI_BASE_URL: `${url}/v1` }) },
  { name: 'openai-responses', env: () => ({ OPENAI_API_KEY: 'k-retry-test', OPENAI_BASE_URL: `${url}/v1` }) },
];

function run(ws: Workspace, provider: string, env: Record<string, string>, onStderr?: (text: string, kill: (s: NodeJS.Signals) => void) => void) {
  return new Promise<{ code: number | null; stderr: string; ms: number }>((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [KEEN_BIN, 'run', '--provider', provider, 'hi'], {
      cwd: ws.cwd,
      env: cleanEnv({ KEEN_HOME: ws.home, ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (d) => {
      stderr += d;
      onStderr?.(stderr, (s) => child.kill(s));
    });
    child.on('close', (code) => resolve({ code, stderr, ms: Date.now() - started }));
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

    it(`${p.name}: a 30 s wait is announced and Ctrl+C ends it within a second`, async () => {
      const ws = workspace();
      retryAfter = '30';
      hits = 0;
      let announcedAt = 0;
      const r = await run(ws, p.name, p.env(), (text, kill) => {
        if (!announcedAt && /retrying in 30 s/.test(text)) {
          announcedAt = Date.now();
          kill('SIGINT');
        }
      });
      expect(announcedAt).toBeGreaterThan(0);
      expect(r.code).toBe(130);
      expect(Date.now() - announcedAt).toBeLessThan(3000);
      expect(hits).toBe(1);
      expect(r.stderr).toMatch(/keen: 127\.0\.0\.1:\d+ answered 429; retrying in 30 s \(retry 1 of 2; Ctrl\+C stops\)/);
    });
  }
});
