/**
 * What the AWS SDK says goes through Keen: a warning it logs (two credential sources set) is one
 * `keen: warning: Bedrock: …` line, once per session, never its raw text; its Node-version notice
 * (Node 20) never reaches stderr, with AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED unset in
 * Keen's environment. Needs `npm run build` first.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBedrockFake } from '../fakes/bedrock-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { assertBuilt, errorLines } from './cli-fixtures.js';
import { runKeen } from './harness.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';

let bedrock: ScriptedServer;
let ws: Workspace;
let home: string;

beforeAll(async () => {
  assertBuilt();
  bedrock = await startBedrockFake();
  ws = tempWorkspace();
  home = path.join(path.dirname(ws.home), 'user-home');
  fs.mkdirSync(path.join(home, '.aws'), { recursive: true });
  fs.writeFileSync(path.join(home, '.aws', 'config'), '[profile work]\naws_access_key_id = AKIDPROFILEWORK\naws_secret_access_key = work-profile-secret-0001\n');
});

afterAll(async () => {
  await bedrock.close();
  ws.cleanup();
});

const env = (more: Record<string, string | undefined>) => ({
  HOME: home,
  AWS_REGION: 'us-east-1',
  AWS_EC2_METADATA_DISABLED: 'true',
  AWS_ENDPOINT_URL_BEDROCK_RUNTIME: bedrock.url,
  // Keen itself must keep the SDK's Node-version notice off stderr (the harness sets the variable).
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: undefined,
  ...more,
});

describe('AWS SDK output goes through Keen', () => {
  it('two credential sources: one keen warning line naming Bedrock, then the answer', async () => {
    bedrock.enqueue({ steps: [{ text: 'First.' }] }, { steps: [{ text: 'Second.' }] });
    const r = await runKeen(['run', '--provider', 'bedrock', '--output-format', 'stream-json', '--input-format', 'stream-json'], {
      cwd: ws.cwd,
      home: ws.home,
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

  it('a plain run on Node 20 prints nothing of the SDK', async () => {
    bedrock.enqueue({ steps: [{ text: 'Quiet.' }] });
    const r = await runKeen(['run', '--provider', 'bedrock', 'hi'], {
      cwd: ws.cwd,
      home: ws.home,
      env: env({ AWS_ACCESS_KEY_ID: 'AKIDENVKEY', AWS_SECRET_ACCESS_KEY: 'env-secret-key-0002' }),
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Quiet.\n');
    expect(errorLines(r.stderr)).toEqual([]);
  });
});
