/**
 * KEEN_CONNECT_TIMEOUT_MS is read once, when src/net/connect-limit.ts loads, so each case runs in
 * its own Node process (the test workers share modules).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A proxy that accepts and never answers; an https request through Keen's tunnel agent for it. */
const SCRIPT = `
import net from 'node:net';
import https from 'node:https';
import { tunnelAgent } from ${JSON.stringify(path.join(ROOT, 'src/net/proxy.ts'))};
const silent = net.createServer(() => {});
await new Promise((r) => silent.listen(0, '127.0.0.1', r));
const agent = await tunnelAgent('https://model.test/', { HTTPS_PROXY: 'http://127.0.0.1:' + silent.address().port });
https.get('https://model.test/', { agent }, () => process.exit(2)).once('error', (err) => {
  process.stdout.write(err.message);
  process.exit(0);
});
`;

function tunnelFailure(env: NodeJS.ProcessEnv): string {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

describe('the connect limit', () => {
  it('KEEN_CONNECT_TIMEOUT_MS also sets the proxy tunnel’s limit', () => {
    expect(tunnelFailure({ KEEN_CONNECT_TIMEOUT_MS: '300' })).toMatch(/did not connect within 300 ms$/);
  });
});
