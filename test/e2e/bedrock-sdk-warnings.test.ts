/**
 * What the AWS SDK says goes through Keen: a warning it logs (two credential sources set) is one
 * `keen: warning: Bedrock: …` line, once per session, never its raw text; its Node-version notice
 * (Node 20) never reaches stderr, with AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED unset in
 * Keen's environment. Needs `npm run build` first.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorLines } from './cli-fixtures.js';
import { runKeen } from './harness.js';
import { bedrockUser } from './bedrock-user.js';

const user = bedrockUser();

beforeAll(() => {
  fs.writeFileSync(path.join(user.home, '.aws', 'config'), '[profile work]\naws_access_key_id = AKIDPROFILEWORK\naws_secret_access_key = work-profile-secret-0001\n');
});

// Keen itself must keep the SDK's Node-version notice off stderr (the harness sets the variable).
const env = (more: Record<string, string>) => user.env({ AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: undefined, ...more });

describe('AWS SDK output goes through Keen', () => {
  it('two credential sources: one keen warning line naming Bedrock, then the answer', async () => {
    user.fake.enqueue({ steps: [{ text: 'First.' }] }, { steps: [{ text: 'Second.' }] });
    const r = await runKeen(['run', '--provider', 'bedrock', '--output-format', 'stream-json', '--input-format', 'stream-json'], {
      cwd: user.ws.cwd,
      home: user.ws.home,
      stdin: `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'one' } })}\n${JSON.stringify({ type: 'user', message: { role: 'user', content: 'two' } })}\n`,
      env: env({ AWS_PROFILE: 'work', AWS_ACCESS_KEY_ID: 'AKIDENVKEY', AWS_SECRET_ACCESS_KEY: 'env-secret-key-0002' }),
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Second.');
    const lines = errorLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^keen: warning: Bedrock: .*Multiple credential sources detected: Both AWS_PROFILE and the pair AWS_ACCESS_KEY_ID\/AWS_SECRET_ACCESS_KEY/);
    expect(r.stderr).not.toMatch(/NodeVersionSupportWarning|JsonCodec2/);
  });

  it("the SDK's JsonCodec2 console.warn: one keen warning line naming Bedrock, never raw", async () => {
    // A handler that reads the request body with a string method (string-reading-body.mjs).
    const preload = fileURLToPath(new URL('./string-reading-body.mjs', import.meta.url));
    user.fake.enqueue({ steps: [{ toolCall: { name: 'read_file', args: { path: 'note.txt' } } }] }, { steps: [{ text: 'Read it.' }] });
    fs.writeFileSync(path.join(user.ws.cwd, 'note.txt'), 'forty-two\n');
    const r = await runKeen(['run', '--provider', 'bedrock', 'read note.txt'], {
      cwd: user.ws.cwd,
      home: user.ws.home,
      env: env({ AWS_ACCESS_KEY_ID: 'AKIDENVKEY', AWS_SECRET_ACCESS_KEY: 'env-secret-key-0002', NODE_OPTIONS: `--import ${preload}` }),
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Read it.\n');
    expect(user.fake.requests.length).toBeGreaterThanOrEqual(2);
    expect(errorLines(r.stderr)).toEqual([
      'keen: warning: Bedrock: JsonCodec2: you have called a string method on a Uint8Array request body. It has been automatically converted to string. In a future version this will throw an error.',
    ]);
    expect(r.stderr).not.toContain('@aws-sdk/core/protocols');
  });

  it('a plain run on Node 20 prints nothing of the SDK', async () => {
    user.fake.enqueue({ steps: [{ text: 'Quiet.' }] });
    const r = await runKeen(['run', '--provider', 'bedrock', 'hi'], {
      cwd: user.ws.cwd,
      home: user.ws.home,
      env: env({ AWS_ACCESS_KEY_ID: 'AKIDENVKEY', AWS_SECRET_ACCESS_KEY: 'env-secret-key-0002' }),
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Quiet.\n');
    expect(errorLines(r.stderr)).toEqual([]);
  });
});
