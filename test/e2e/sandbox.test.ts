/**
 * Secrets and the sandbox end to end: a spawned `keen run --yolo` whose environment holds
 * credentials runs commands that look for them, in bubblewrap and without it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorLines, FAKE_KEY, toolResults, useCliRig } from './cli-fixtures.js';
import { itSandbox } from '../kit/sandbox.js';
import { tempDir } from '../kit/temp-dir.js';

const { rig, workspace } = useCliRig();

const SECRETS = {
  ANTHROPIC_AUTH_TOKEN: 'tok-auth-5e1f',
  OPENAI_API_KEY: 'sk-openai-e2e-77aa',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-e2e-0b0b',
  AWS_SESSION_TOKEN: 'aws-session-e2e-1c1c',
  GITHUB_TOKEN: 'ghp_e2eTokenValue123',
  DEPLOY_PASSWORD: 'pw-e2e-9d9d',
  MY_LLM_CRED_VAR: 'named-by-apiKeyEnv-4242',
};

function bashOnce(command: string): number {
  const from = rig.fake.requests.length;
  rig.fake.enqueue({ steps: [{ toolCall: { name: 'bash', args: { command } } }] }, { steps: [{ text: 'ok' }] });
  return from + 1;
}

describe('keen run: secrets stay home', () => {
  itSandbox('env, /proc/$PPID/environ and every /proc/*/environ inside the sandbox show none of the credentials', async () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ providers: { openai: { apiKeyEnv: 'MY_LLM_CRED_VAR' } } }));
    const second = bashOnce('env; echo ---; cat /proc/$PPID/environ | tr "\\0" "\\n"; for f in /proc/[0-9]*/environ; do tr "\\0" "\\n" < $f; done; echo END');
    const r = await rig.keen(ws, ['run', '--yolo', 'show the environment'], { env: SECRETS });
    expect(r.code).toBe(0);
    const [result] = toolResults(rig.fake.requests[second]);
    expect(result.text).toContain('END');
    expect(result.text).toContain(`KEEN_HOME=${ws.home}`);
    for (const value of [FAKE_KEY, ...Object.values(SECRETS)]) expect(result.text).not.toContain(value);
  });

  it('bash.envPassthrough in the user config lets a named variable through', async () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ bash: { envPassthrough: ['GITHUB_TOKEN'] } }));
    const second = bashOnce('echo "gh=$GITHUB_TOKEN aws=$AWS_SECRET_ACCESS_KEY"');
    const r = await rig.keen(ws, ['run', '--yolo', 'go'], { env: SECRETS });
    expect(r.code).toBe(0);
    expect(toolResults(rig.fake.requests[second])[0].text).toContain(`gh=${SECRETS.GITHUB_TOKEN} aws=\n`);
  });

  itSandbox("an untrusted project's bash.envPassthrough and sandbox.mode are ignored", async () => {
    const ws = workspace({ '.keen/config.json': JSON.stringify({ bash: { envPassthrough: ['GITHUB_TOKEN'] }, sandbox: { mode: 'off' } }) });
    const outside = fs.mkdtempSync(path.join(os.homedir(), '.keen-e2e-outside-'));
    try {
      const second = bashOnce(`echo "gh=[$GITHUB_TOKEN]"; touch ${outside}/escaped`);
      const r = await rig.keen(ws, ['run', '--permission-mode', 'bypassPermissions', 'go'], { env: SECRETS });
      expect(r.code).toBe(0);
      const [result] = toolResults(rig.fake.requests[second]);
      expect(result.text).toContain('gh=[]');
      expect(result.text).toContain('Read-only file system');
      expect(fs.existsSync(path.join(outside, 'escaped'))).toBe(false);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe('keen run: commands do not outlive their call', () => {
  itSandbox('in the sandbox even a setsid background process ends with the command', async () => {
    const ws = workspace();
    const tag = `sleep ${2000 + Math.floor(Math.random() * 900)}.25`;
    const second = bashOnce(`setsid ${tag} >/dev/null 2>&1 & ${tag.replace('.25', '.5')} >/dev/null 2>&1 & echo started`);
    const r = await rig.keen(ws, ['run', '--yolo', 'go']);
    expect(r.code).toBe(0);
    expect(toolResults(rig.fake.requests[second])[0].text).toContain('started');
    const left = execFileSync('bash', ['-c', `pgrep -f "^${tag.split('.')[0]}" || true`], { encoding: 'utf8' }).trim();
    expect(left).toBe('');
  });
});

describe('keen run: no sandbox on this system', () => {
  it('a run that never calls bash says nothing about the sandbox', async () => {
    const ws = workspace();
    const bin = tempDir('keen-e2e-bin-');
    try {
      fs.symlinkSync('/bin/bash', path.join(bin, 'bash'));
      rig.fake.enqueue({ steps: [{ text: 'hello' }] });
      const r = await rig.keen(ws, ['run', 'hi'], { env: { PATH: bin } });
      expect(r.code).toBe(0);
      expect(errorLines(r.stderr)).toEqual([]);
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });

  it('says so once on stderr and in the first result, runs commands unconfined, and still withholds secrets', async () => {
    const ws = workspace();
    const bin = tempDir('keen-e2e-bin-');
    try {
      fs.symlinkSync('/bin/bash', path.join(bin, 'bash'));
      const from = rig.fake.requests.length;
      rig.fake.enqueue(
        { steps: [{ toolCall: { name: 'bash', args: { command: 'echo "one gh=[$GITHUB_TOKEN]"' } } }] },
        { steps: [{ toolCall: { name: 'bash', args: { command: 'echo two' } } }] },
        { steps: [{ text: 'ok' }] },
      );
      const r = await rig.keen(ws, ['run', '--yolo', 'go'], { env: { ...SECRETS, PATH: bin } });
      expect(r.code).toBe(0);
      expect(r.stderr.split('\n').filter((l) => l.trim() !== '')).toEqual([
        'keen: warning: no sandbox for bash: bubblewrap (bwrap) is not installed; commands run without one (see docs/permissions.md)',
      ]);
      const results = toolResults(rig.fake.requests[from + 2]);
      expect(results[0].text).toBe(
        'one gh=[]\n[exit code 0]\n[no sandbox: bubblewrap (bwrap) is not installed; commands run without one (as with sandbox.mode "off"). See docs/permissions.md.]',
      );
      expect(results[1].text).toBe('two\n[exit code 0]');
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });
});
