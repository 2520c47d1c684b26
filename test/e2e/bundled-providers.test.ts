/**
 * The provider SDKs are bundled into lazily loaded chunks of dist/ (scripts/build.mjs). The unit
 * and conformance tests import src/ directly, so only a spawned `bin/keen.js` shows that each
 * bundled SDK still loads and streams: one headless turn per provider against its loopback fake.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt } from './cli-fixtures.js';
import { runKeen } from './harness.js';
import { PROVIDER_CASES, providerCase, startProvider } from './provider-cases.js';

// Anthropic's SDK is spawned from dist/ by launch-path.test.ts.
const CASES = PROVIDER_CASES.filter((c) => c.provider !== 'anthropic');

describe('bundled provider SDKs', () => {
  assertBuilt();
  it.each(CASES.map((c) => [c.provider, c] as const))('%s answers one headless turn from dist/', async (_name, c) => {
    const { fake, ws, env } = await startProvider(c);
    fake.enqueue({ steps: [{ text: `hello from the ${c.provider} fake` }] });
    const res = await runKeen(['run', '--provider', c.provider, 'say hello'], { cwd: ws.cwd, home: ws.home, env });
    expect(res.stderr).not.toMatch(/Cannot find|ERR_MODULE|Dynamic require/);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(`hello from the ${c.provider} fake`);
    expect(fake.requests.length).toBeGreaterThan(0);
  });

  it('bedrock in record mode records the turn and writes nothing to stderr (the AWS SDK warns when its JSON body is read as a string)', async () => {
    const { fake, ws, env } = await startProvider(providerCase('bedrock'));
    fake.enqueue({ steps: [{ text: 'recorded answer' }] });
    const dir = path.join(ws.home, 'recordings');
    const res = await runKeen(['run', '--provider', 'bedrock', 'say hello'], { cwd: ws.cwd, home: ws.home, env: { ...env, KEEN_RECORD: dir } });
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('recorded answer');
    expect(res.stderr).toBe('');
    const [recording] = fs.readdirSync(dir).map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
    expect(recording.provider).toBe('bedrock');
    expect(JSON.stringify(recording.request)).toContain('say hello');
  });
});
