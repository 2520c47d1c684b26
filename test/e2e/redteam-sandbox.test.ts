/**
 * Red team (issue 24): the protected paths hold when sandboxed bash moves the folder above them
 * aside (`mv .git`, `mv .github`) and puts one of its own in its place, and when the workspace's
 * `.git` is a file naming the repository (`gitdir: …`), which a command could point elsewhere.
 * Real bubblewrap, a spawned `keen run --yolo`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { toolResults, useCliRig } from './cli-fixtures.js';
import { describeSandbox } from '../kit/sandbox.js';

const { rig, workspace } = useCliRig();

function bashOnce(command: string): number {
  const from = rig.fake.requests.length;
  rig.fake.enqueue({ steps: [{ toolCall: { name: 'bash', args: { command } } }] }, { steps: [{ text: 'ok' }] });
  return from + 1;
}

function gitRepo(cwd: string, ...initArgs: string[]): void {
  const git = (...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });
  git('init', '-q', ...initArgs);
  git('config', 'user.email', 'e2e@example.invalid');
  git('config', 'user.name', 'e2e');
  git('add', '-A');
  git('commit', '-qm', 'init');
}

describeSandbox('protected paths cannot be swapped out from under their mounts', () => {
  it('mv .git / mv .github and a replacement fail; the hook and config stay the repository’s; git commit still works', async () => {
    const ws = workspace({ 'a.txt': 'one\n', '.github/README.md': 'x\n' });
    gitRepo(ws.cwd);
    const config = fs.readFileSync(path.join(ws.cwd, '.git/config'), 'utf8');
    const at = bashOnce(
      [
        'mv .git .git-moved && cp -a .git-moved .git',
        'printf "#!/bin/sh\\ntouch PWNED\\n" > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit',
        'printf "[core]\\n\\tfsmonitor = touch PWNED\\n" >> .git/config',
        'mv .github .github-moved; mkdir -p .github/workflows; echo "on: push" > .github/workflows/ci.yml',
        'echo two >> a.txt && git commit -qam two && git log --format=%s -1',
        'echo END',
      ].join('; '),
    );
    const r = await rig.keen(ws, ['run', '--yolo', 'go']);
    expect(r.code).toBe(0);
    const text = toolResults(rig.fake.requests[at])[0].text;
    expect(text).toContain('two\nEND');
    expect(fs.existsSync(path.join(ws.cwd, '.git-moved'))).toBe(false);
    expect(fs.existsSync(path.join(ws.cwd, '.github-moved'))).toBe(false);
    expect(fs.readFileSync(path.join(ws.cwd, '.git/config'), 'utf8')).toBe(config);
    expect(fs.existsSync(path.join(ws.cwd, '.git/hooks/pre-commit'))).toBe(false);
    expect(fs.existsSync(path.join(ws.cwd, '.github/workflows'))).toBe(false);
    expect(fs.readdirSync(path.join(ws.cwd, '.github'))).toEqual(['README.md']);
    expect(fs.existsSync(path.join(ws.cwd, 'PWNED'))).toBe(false);
    expect(execFileSync('git', ['log', '--format=%s', '-1'], { cwd: ws.cwd, encoding: 'utf8' }).trim()).toBe('two');
  });

  it('a .git file (gitdir: …) cannot be pointed at a repository the command made', async () => {
    const ws = workspace({ 'a.txt': 'one\n' });
    gitRepo(ws.cwd, '--separate-git-dir', 'gitdir-store');
    const gitFile = fs.readFileSync(path.join(ws.cwd, '.git'), 'utf8');
    const at = bashOnce(['cp -a gitdir-store evil && printf "[core]\\n\\tfsmonitor = touch PWNED\\n" >> evil/config', 'echo "gitdir: evil" > .git', 'echo END'].join('; '));
    expect((await rig.keen(ws, ['run', '--yolo', 'go'])).code).toBe(0);
    expect(toolResults(rig.fake.requests[at])[0].text).toContain('END');
    expect(fs.readFileSync(path.join(ws.cwd, '.git'), 'utf8')).toBe(gitFile);
    execFileSync('git', ['status', '--short'], { cwd: ws.cwd });
    expect(fs.existsSync(path.join(ws.cwd, 'PWNED'))).toBe(false);
  });

  it('a command that is root inside the sandbox cannot unmount what hides ~/.ssh', async () => {
    const ws = workspace();
    // Outside /tmp, which the sandbox replaces with its own.
    const home = fs.mkdtempSync(path.join(os.homedir(), '.keen-e2e-user-'));
    try {
      fs.mkdirSync(path.join(home, '.ssh'));
      fs.writeFileSync(path.join(home, '.ssh/id_ed25519'), 'SSH-PRIVATE-KEY-e2e\n');
      const at = bashOnce('id -u; umount ~/.ssh; umount -l ~/.ssh; cat ~/.ssh/id_ed25519; echo END');
      expect((await rig.keen(ws, ['run', '--yolo', 'go'], { env: { HOME: home } })).code).toBe(0);
      const text = toolResults(rig.fake.requests[at])[0].text;
      expect(text.split('\n')[0]).toBe(String(process.getuid?.()));
      expect(text).toMatch(/umount: .*(must be superuser|Operation not permitted)/);
      expect(text).toContain('END');
      expect(text).not.toContain('SSH-PRIVATE-KEY-e2e');
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
