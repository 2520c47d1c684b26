/**
 * The sandbox is a boundary (issue 24), end to end with real bubblewrap: a spawned `keen run
 * --yolo` whose fake model runs bash. No host socket (a real tmux server, a real ssh-agent, the
 * runtime folder) is reachable, no credential store is readable by commands or the file tools,
 * and protected paths stay read-only for commands while `git commit` still works.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolResults, useCliRig } from './cli-fixtures.js';
import { describeSandbox, itSandbox } from '../kit/sandbox.js';
import { tempDir } from '../kit/temp-dir.js';

const { rig, workspace } = useCliRig();

/** Outside the host /tmp (which the sandbox replaces anyway), so hiding is what is tested. */
let outside: string;
beforeAll(() => {
  outside = fs.mkdtempSync(path.join(os.homedir(), '.keen-e2e-boundary-'));
});
afterAll(() => fs.rmSync(outside, { recursive: true, force: true }));

/** Queue one bash call (then "ok"); returns the index of the request that carries its result. */
function bashOnce(command: string): number {
  const from = rig.fake.requests.length;
  rig.fake.enqueue({ steps: [{ toolCall: { name: 'bash', args: { command } } }] }, { steps: [{ text: 'ok' }] });
  return from + 1;
}

function resultOf(index: number): string {
  return toolResults(rig.fake.requests[index])[0].text;
}

describeSandbox('no escape through host sockets', () => {
  it("a tmux server's socket under the host /tmp cannot be driven: no window, no marker", async () => {
    const ws = workspace();
    const dir = tempDir('keen-e2e-tmux-');
    const sock = path.join(dir, 'default');
    const marker = path.join(outside, 'tmux-escaped');
    execFileSync('tmux', ['-S', sock, 'new-session', '-d', '-s', 'victim', 'sleep 600']);
    try {
      const at = bashOnce(`tmux -S ${sock} new-window -d 'touch ${marker}'; ls -la ${sock}; echo END`);
      const r = await rig.keen(ws, ['run', '--yolo', 'go']);
      expect(r.code).toBe(0);
      expect(resultOf(at)).toContain('END');
      await new Promise((res) => setTimeout(res, 300));
      expect(fs.existsSync(marker)).toBe(false);
      const windows = execFileSync('tmux', ['-S', sock, 'list-windows', '-t', 'victim'], { encoding: 'utf8' }).trim().split('\n');
      expect(windows).toHaveLength(1);
    } finally {
      spawnSync('tmux', ['-S', sock, 'kill-server']);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('SSH_AUTH_SOCK is not passed and the agent socket is not visible, wherever it lives', async () => {
    const ws = workspace();
    const sock = path.join(outside, 'agent.sock');
    const agent = execFileSync('bash', ['-c', `exec ssh-agent -a ${sock} -s`], { encoding: 'utf8' });
    const pid = /SSH_AGENT_PID=(\d+)/.exec(agent)?.[1];
    try {
      const at = bashOnce(`echo "sock=[$SSH_AUTH_SOCK]"; test -S ${sock} && echo AGENT-SOCKET-VISIBLE; SSH_AUTH_SOCK=${sock} ssh-add -l; echo END`);
      const r = await rig.keen(ws, ['run', '--yolo', 'go'], { env: { SSH_AUTH_SOCK: sock } });
      expect(r.code).toBe(0);
      const text = resultOf(at);
      expect(text).toContain('sock=[]');
      expect(text).not.toContain('AGENT-SOCKET-VISIBLE');
      expect(text).not.toMatch(/no identities|SHA256/);
      expect(text).toContain('END');
    } finally {
      if (pid) process.kill(Number(pid), 'SIGTERM');
    }
  });

  it('XDG_RUNTIME_DIR, the D-Bus address and DISPLAY are not passed, and the runtime folder is hidden', async () => {
    const ws = workspace();
    const runtime = fs.mkdtempSync(path.join(outside, 'runtime-'));
    fs.writeFileSync(path.join(runtime, 'RUNTIME-MARKER'), 'x');
    const at = bashOnce(`echo "rt=[$XDG_RUNTIME_DIR] bus=[$DBUS_SESSION_BUS_ADDRESS] x=[$DISPLAY]"; ls -A ${runtime}; ls -A /run; echo END`);
    const r = await rig.keen(ws, ['run', '--yolo', 'go'], {
      env: { XDG_RUNTIME_DIR: runtime, DBUS_SESSION_BUS_ADDRESS: `unix:path=${runtime}/bus`, DISPLAY: ':0' },
    });
    expect(r.code).toBe(0);
    const text = resultOf(at);
    expect(text).toContain('rt=[] bus=[] x=[]');
    expect(text).not.toContain('RUNTIME-MARKER');
    expect(text).not.toContain('dbus');
  });
});

/** A fake home outside /tmp holding one secret per credential store. */
function fakeHomeWithStores(): { home: string; env: Record<string, string>; secrets: string[] } {
  const home = fs.mkdtempSync(path.join(outside, 'home-'));
  const elsewhere = fs.mkdtempSync(path.join(outside, 'elsewhere-'));
  const secrets: string[] = [];
  const put = (file: string) => {
    const secret = `SECRET-${secrets.length}-${path.basename(file)}`;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${secret}\n`);
    secrets.push(secret);
  };
  for (const rel of [
    '.aws/credentials',
    '.config/gcloud/credentials.db',
    '.azure/msal_token_cache.json',
    '.claude/.credentials.json',
    '.gemini/oauth_creds.json',
    '.git-credentials',
    '.config/git/credentials',
    '.netrc',
    '.npmrc',
    '.cargo/credentials.toml',
    '.cargo/credentials',
    '.docker/config.json',
    '.kube/config',
    '.pgpass',
    '.bash_history',
    '.zsh_history',
    '.local/share/fish/fish_history',
  ])
    put(path.join(home, rel));
  const env = {
    HOME: home,
    CODEX_HOME: path.join(elsewhere, 'codex'),
    AWS_SHARED_CREDENTIALS_FILE: path.join(elsewhere, 'aws-creds'),
    AWS_CONFIG_FILE: path.join(elsewhere, 'aws-config'),
    KUBECONFIG: path.join(elsewhere, 'kube-a'),
    CLOUDSDK_CONFIG: path.join(elsewhere, 'gcloud'),
  };
  put(path.join(env.CODEX_HOME, 'auth.json'));
  put(env.AWS_SHARED_CREDENTIALS_FILE);
  put(env.AWS_CONFIG_FILE);
  put(env.KUBECONFIG);
  put(path.join(env.CLOUDSDK_CONFIG, 'access_tokens.db'));
  return { home, env, secrets };
}

describe('credential stores are hidden', () => {
  itSandbox('bash reads none of them: $CODEX_HOME/auth.json, the file AWS_SHARED_CREDENTIALS_FILE names, ~/.aws, histories, …', async () => {
    const ws = workspace();
    const { home, env, secrets } = fakeHomeWithStores();
    fs.writeFileSync(path.join(ws.home, 'auth.json'), '{"tokens":{"access":"SECRET-KEEN-AUTH"}}');
    const at = bashOnce(
      `cat "$CODEX_HOME/auth.json" "$AWS_SHARED_CREDENTIALS_FILE" "$AWS_CONFIG_FILE" "$KUBECONFIG" "$CLOUDSDK_CONFIG"/* ${ws.home}/auth.json 2>&1; ` +
        `find ${home} -type f -exec cat {} + 2>&1; echo END`,
    );
    const r = await rig.keen(ws, ['run', '--yolo', 'go'], { env });
    expect(r.code).toBe(0);
    const text = resultOf(at);
    expect(text).toContain('END');
    for (const s of [...secrets, 'SECRET-KEEN-AUTH']) expect(text).not.toContain(s);
  });

  it('read_file of ~/.aws/credentials is refused even with --yolo, grep over the home folder skips the stores; an explicit allow rule opens one', async () => {
    const ws = workspace();
    const { home, env, secrets } = fakeHomeWithStores();
    fs.writeFileSync(path.join(home, 'notes.txt'), 'SECRET-NOT-REALLY\n');
    const from = rig.fake.requests.length;
    rig.fake.enqueue(
      {
        steps: [
          { toolCall: { name: 'read_file', args: { path: path.join(home, '.aws/credentials') } } },
          { toolCall: { name: 'read_file', args: { path: `${env.CODEX_HOME}/auth.json` } } },
          { toolCall: { name: 'grep', args: { pattern: 'SECRET-', path: home } } },
        ],
      },
      { steps: [{ text: 'ok' }] },
    );
    expect((await rig.keen(ws, ['run', '--yolo', 'go'], { env })).code).toBe(0);
    const [aws, codex, grep] = toolResults(rig.fake.requests[from + 1]);
    expect(aws.isError).toBe(true);
    expect(aws.text).toMatch(/^Refusing read_file on .*\.aws\/credentials: it is a credential store/);
    expect(codex.isError).toBe(true);
    expect(grep.text).toContain('SECRET-NOT-REALLY');
    for (const s of secrets) for (const t of [aws.text, codex.text, grep.text]) expect(t).not.toContain(s);

    fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ permissions: { allow: ['read_file(~/.aws/credentials)'] } }));
    const next = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'read_file', args: { path: '~/.aws/credentials' } } }] }, { steps: [{ text: 'ok' }] });
    expect((await rig.keen(ws, ['run', 'go'], { env })).code).toBe(0);
    const [opened] = toolResults(rig.fake.requests[next + 1]);
    expect(opened.isError).toBe(false);
    expect(opened.text).toContain(secrets[0]);
  });
});

function gitRepo(cwd: string): void {
  const git = (...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });
  git('init', '-q');
  git('config', 'user.email', 'e2e@example.invalid');
  git('config', 'user.name', 'e2e');
  git('add', '-A');
  git('commit', '-qm', 'init');
}

describeSandbox('protected paths are protected from bash too', () => {
  it('writes to .git/config, .git/hooks, .keen/config.json, an absent .vscode/ and .mcp.json fail; git commit still works; no mount point is left', async () => {
    const ws = workspace({ 'a.txt': 'one\n', '.keen/config.json': '{}\n' });
    gitRepo(ws.cwd);
    const config = fs.readFileSync(path.join(ws.cwd, '.git/config'), 'utf8');
    const at = bashOnce(
      [
        'echo "[core]\n\tfsmonitor = touch PWNED" >> .git/config',
        'echo "touch PWNED" > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit',
        'echo \'{"permissions":{"allow":["bash"]}}\' > .keen/config.json',
        'mkdir -p .vscode; echo "{}" > .vscode/settings.json',
        'echo "{}" > .mcp.json',
        'mkdir -p .github/workflows && echo "on: push" > .github/workflows/ci.yml',
        'echo two >> a.txt && git commit -qam two && git log --format=%s -1',
        'echo END',
      ].join('; '),
    );
    const r = await rig.keen(ws, ['run', '--yolo', 'go']);
    expect(r.code).toBe(0);
    const text = resultOf(at);
    expect(text).toContain('two\nEND');
    expect(text).toContain('Read-only file system');
    expect(fs.readFileSync(path.join(ws.cwd, '.git/config'), 'utf8')).toBe(config);
    expect(fs.existsSync(path.join(ws.cwd, '.git/hooks/pre-commit'))).toBe(false);
    expect(fs.readFileSync(path.join(ws.cwd, '.keen/config.json'), 'utf8')).toBe('{}\n');
    for (const absent of ['.vscode', '.mcp.json', '.github', '.envrc', '.cursor']) expect(fs.existsSync(path.join(ws.cwd, absent))).toBe(false);
    expect(fs.existsSync(path.join(ws.cwd, 'PWNED'))).toBe(false);
    expect(execFileSync('git', ['log', '--format=%s', '-1'], { cwd: ws.cwd, encoding: 'utf8' }).trim()).toBe('two');
  });

  it('an existing .vscode/ stays read-only too', async () => {
    const ws = workspace({ '.vscode/settings.json': '{}\n' });
    const at = bashOnce('echo "{\\"tasks\\":1}" > .vscode/tasks.json; echo x >> .vscode/settings.json; echo END');
    expect((await rig.keen(ws, ['run', '--yolo', 'go'])).code).toBe(0);
    expect(resultOf(at)).toContain('Read-only file system');
    expect(fs.readdirSync(path.join(ws.cwd, '.vscode'))).toEqual(['settings.json']);
    expect(fs.readFileSync(path.join(ws.cwd, '.vscode/settings.json'), 'utf8')).toBe('{}\n');
  });
});

describeSandbox('the files that point git elsewhere are protected from bash', () => {
  it('an absent .git/config.worktree cannot be created; a .git/commondir a command creates is moved aside before git reads it', async () => {
    const ws = workspace({ 'a.txt': 'one\n' });
    gitRepo(ws.cwd);
    const at = bashOnce(
      [
        'printf "[core]\\n\\tfsmonitor = touch PWNED\\n" > .git/config.worktree',
        'git init -q --bare evil && printf "[core]\\n\\tfsmonitor = touch PWNED\\n" >> evil/config',
        'echo ../evil > .git/commondir',
        'echo END',
      ].join('; '),
    );
    const r = await rig.keen(ws, ['run', '--yolo', 'go']);
    expect(r.code, r.stderr).toBe(0);
    const text = resultOf(at);
    expect(text).toContain('END');
    expect(text).toContain('Read-only file system');
    expect(fs.existsSync(path.join(ws.cwd, '.git/config.worktree'))).toBe(false);
    expect(fs.existsSync(path.join(ws.cwd, '.git/commondir'))).toBe(false);
    const kept = fs.readdirSync(path.join(ws.cwd, '.git')).filter((n) => n.startsWith('commondir.replaced-'));
    expect(kept).toHaveLength(1);
    expect(text).toMatch(/\[sandbox: .*\.git\/commondir appeared during the command and was moved aside \(now commondir\.replaced-\d+\)\]/);
    // git finds its own repository again.
    expect(execFileSync('git', ['rev-parse', '--git-common-dir'], { cwd: ws.cwd, encoding: 'utf8' }).trim()).toBe('.git');
  });

  it("a linked worktree's gitdir keeps its commondir and config.worktree read-only", async () => {
    const ws = workspace({ 'a.txt': 'one\n' });
    const main = ws.cwd;
    gitRepo(main);
    const wt = path.join(path.dirname(main), 'wt');
    execFileSync('git', ['worktree', 'add', '-q', wt], { cwd: main });
    const gitDir = fs.realpathSync(path.join(main, '.git/worktrees/wt'));
    const commondir = fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8');
    const from = rig.fake.requests.length;
    rig.fake.enqueue(
      { steps: [{ toolCall: { name: 'bash', args: { command: `echo /elsewhere > ${gitDir}/commondir; echo "[core]" > ${gitDir}/config.worktree; echo END` } } }] },
      { steps: [{ text: 'ok' }] },
    );
    const r = await rig.keen({ ...ws, cwd: wt }, ['run', '--yolo', '--add-dir', main, 'go']);
    expect(r.code, r.stderr).toBe(0);
    const text = toolResults(rig.fake.requests[from + 1])[0].text;
    expect(text).toContain('END');
    expect(text).toContain('Read-only file system');
    expect(fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8')).toBe(commondir);
    expect(fs.existsSync(path.join(gitDir, 'config.worktree'))).toBe(false);
  });
});
