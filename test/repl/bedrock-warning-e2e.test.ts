/**
 * A warning the AWS SDK logs (AWS_PROFILE and static keys both set), or prints past its logger
 * (its JSON codec's console.warn), is one warning notice in the REPL naming Bedrock, never the
 * SDK's raw text torn into the screen. Needs `npm run build` first.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { startBedrockFake } from '../fakes/bedrock-fake.js';
import { useTmuxRig } from './tmux.js';

const rig = useTmuxRig(startBedrockFake);

it("shows the SDK's two-credential-sources warning once, as a notice naming Bedrock", async () => {
  const home = path.join(path.dirname(rig.ws.home), 'user-home');
  fs.mkdirSync(path.join(home, '.aws'), { recursive: true });
  fs.writeFileSync(path.join(home, '.aws', 'config'), '[profile work]\naws_access_key_id = AKIDPROFILEWORK\naws_secret_access_key = work-profile-secret-0001\n');
  rig.fake.enqueue({ steps: [{ text: 'First answer.' }] }, { steps: [{ text: 'Second answer.' }] });
  const env = {
    HOME: home,
    AWS_PROFILE: 'work',
    AWS_ACCESS_KEY_ID: 'AKIDENVKEY',
    AWS_SECRET_ACCESS_KEY: 'env-secret-key-0002',
    AWS_REGION: 'us-east-1',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_ENDPOINT_URL_BEDROCK_RUNTIME: rig.fake.url,
  };
  const t = rig.start({ args: ['--provider', 'bedrock'], env });
  await t.waitFor('Type a message');
  t.type('hello');
  await t.waitFor('First answer.');
  t.type('again');
  const screen = await t.waitFor('Second answer.');
  expect(rig.fake.requests).toHaveLength(2);
  expect(screen.match(/Bedrock: @aws-sdk\/credential-provider-node - defaultProvider::fromEnv WARNING: Multiple credential/g)).toHaveLength(1);
  // The SDK's own multi-line text never reaches the screen raw.
  expect(screen).not.toMatch(/^\s*Both AWS_PROFILE and the pair/m);
});

it("shows the SDK's JsonCodec2 console warning once, as a notice naming Bedrock", async () => {
  // A handler that reads the request body with a string method (test/e2e/string-reading-body.mjs).
  const preload = fileURLToPath(new URL('../e2e/string-reading-body.mjs', import.meta.url));
  rig.fake.enqueue({ steps: [{ text: 'First answer.' }] }, { steps: [{ text: 'Second answer.' }] });
  const env = {
    AWS_ACCESS_KEY_ID: 'AKIDENVKEY',
    AWS_SECRET_ACCESS_KEY: 'env-secret-key-0002',
    AWS_REGION: 'us-east-1',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_ENDPOINT_URL_BEDROCK_RUNTIME: rig.fake.url,
    NODE_OPTIONS: `--import ${preload}`,
  };
  const t = rig.start({ args: ['--provider', 'bedrock'], env });
  await t.waitFor('Type a message');
  t.type('hello');
  await t.waitFor('First answer.');
  t.type('again');
  const screen = await t.waitFor('Second answer.');
  expect(rig.fake.requests.length).toBeGreaterThanOrEqual(2);
  expect(screen.match(/Bedrock: JsonCodec2: you have called a string method on a Uint8Array request body/g)).toHaveLength(1);
  expect(screen).not.toContain('@aws-sdk/core/protocols');
});
