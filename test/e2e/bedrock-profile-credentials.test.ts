/**
 * AWS credentials Keen never saw in its environment — read by the SDK from a profile file in a
 * temp HOME (`~/.aws/credentials`, a `[profile …]` of `~/.aws/config` picked by AWS_PROFILE, a
 * `credential_process`) — are scrubbed once the Bedrock client resolved them: a Bedrock error that
 * quotes the secret and session keys shows `[REDACTED]` on stderr and in the JSON result. Needs
 * `npm run build` first.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKeen } from './harness.js';
import { bedrockUser } from './bedrock-user.js';

const user = bedrockUser();

/** keen against the Bedrock fake with HOME in the temp folder and no AWS key in the environment. */
function keen(args: string[], env: Record<string, string> = {}) {
  return runKeen(['run', '--provider', 'bedrock', ...args, 'hi'], {
    cwd: user.ws.cwd,
    home: user.ws.home,
    env: user.env(env),
  });
}

/** The service's 403 quoting what it was sent, as a proxy or a confused service may. */
function rejectQuoting(...values: string[]): void {
  user.fake.enqueue({ error: { status: 403, type: 'UnrecognizedClientException', message: `The security token included in the request is invalid: ${values.join(' / ')}` } });
}

function expectNoLeak(text: string, secrets: string[]): void {
  for (const secret of secrets) for (const spelling of [secret, encodeURIComponent(secret), secret.replaceAll('/', '\\/')]) expect(text).not.toContain(spelling);
}

describe('AWS credentials from a profile are scrubbed once resolved', () => {
  it('~/.aws/credentials [default]: not on stderr nor in the JSON result', async () => {
    const secret = 'prof/Default+Secret0aa1bb2cc3dd4ee5ff6gg7hh';
    const session = 'IQoJprofile/Session+Token=00e2e11default';
    fs.writeFileSync(
      path.join(user.home, '.aws', 'credentials'),
      `[default]\naws_access_key_id = AKIDPROFILEDEFAULT\naws_secret_access_key = ${secret}\naws_session_token = ${session}\n`,
    );
    for (const format of ['text', 'json']) {
      rejectQuoting(secret, session);
      const r = await keen(['--output-format', format]);
      expect(r.code).toBe(1);
      // The fake got a request signed with the profile's key id: the file was what the SDK used.
      expect(String(user.fake.requests.at(-1)?.headers.authorization)).toContain('Credential=AKIDPROFILEDEFAULT/');
      expect(r.stderr).toContain('The security token included in the request is invalid: [REDACTED] / [REDACTED]');
      if (format === 'json') expect(JSON.parse(r.stdout).error.message).toContain('invalid: [REDACTED] / [REDACTED]');
      expectNoLeak(r.stdout + r.stderr, [secret, session]);
    }
  });

  it('a [profile] of ~/.aws/config named by AWS_PROFILE, and a credential_process: not on stderr', async () => {
    const secret = 'prof/Work+Secret9zz8yy7xx6ww5vv4uu3tt2ss1rr';
    const processSecret = 'proc/Process+Secret1qq2pp3oo4nn5mm6ll7kk8jj';
    const processToken = 'IQoJprocess/Session+Token=77e2e88proc';
    const script = path.join(user.home, 'creds.cjs');
    fs.writeFileSync(
      script,
      `process.stdout.write(JSON.stringify({ Version: 1, AccessKeyId: 'AKIDPROCESSCREDS', SecretAccessKey: ${JSON.stringify(processSecret)}, SessionToken: ${JSON.stringify(processToken)} }));\n`,
    );
    fs.writeFileSync(
      path.join(user.home, '.aws', 'config'),
      `[profile work]\naws_access_key_id = AKIDPROFILEWORK\naws_secret_access_key = ${secret}\n\n[profile proc]\ncredential_process = ${process.execPath} ${script}\n`,
    );
    rejectQuoting(secret);
    const work = await keen([], { AWS_PROFILE: 'work' });
    expect(work.code).toBe(1);
    expect(String(user.fake.requests.at(-1)?.headers.authorization)).toContain('Credential=AKIDPROFILEWORK/');
    expect(work.stderr).toContain('invalid: [REDACTED]');
    expectNoLeak(work.stdout + work.stderr, [secret]);

    rejectQuoting(processSecret, processToken);
    const proc = await keen([], { AWS_PROFILE: 'proc' });
    expect(proc.code).toBe(1);
    expect(String(user.fake.requests.at(-1)?.headers.authorization)).toContain('Credential=AKIDPROCESSCREDS/');
    expect(proc.stderr).toContain('invalid: [REDACTED] / [REDACTED]');
    expectNoLeak(proc.stdout + proc.stderr, [processSecret, processToken]);
  });
});
