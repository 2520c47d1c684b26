/**
 * The bash sandbox against real bubblewrap (installed by .ci/run): file system, hidden
 * credentials, network, PID namespace and process cleanup.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDefaultRegistry, defaultTools, mutatingCalls, planModeRegistry } from '../../src/tools/index.js';
import { bwrapArgs, planFor, seatbeltProfile } from '../../src/tools/sandbox/index.js';
import { exposedHostPaths } from '../../src/tools/sandbox/host-sockets.js';
import { capabilityArgs } from '../../src/tools/sandbox/bwrap.js';
import { call } from './helpers.js';
import { tempProject } from '../kit/temp-dir.js';
import { describeSandbox } from '../kit/sandbox.js';

const sandboxed = createDefaultRegistry({ sandbox: { mode: 'workspace-write', network: false } });
const run = (cwd: string, command: string, registry = sandboxed) => call(cwd, 'bash', { command, timeout_seconds: 20 }, { registry });

let outside: string;
let fakeHome: string;
let savedHome: string | undefined;
let server: net.Server;
let port: number;

beforeAll(async () => {
  // Outside the workspace and outside /tmp and /var/tmp (the sandbox's own, private and empty).
  outside = await mkdtemp(path.join(os.homedir(), '.keen-sandbox-outside-'));
  fakeHome = await mkdtemp(path.join(os.homedir(), '.keen-sandbox-home-'));
  await mkdir(path.join(fakeHome, '.ssh'));
  await writeFile(path.join(fakeHome, '.ssh/id_x'), 'PRIVATE-KEY-MATERIAL\n');
  savedHome = process.env.HOME;
  process.env.HOME = fakeHome;
  server = net.createServer((s) => s.end('hello-from-host\n'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as net.AddressInfo).port;
});

afterAll(async () => {
  if (savedHome === undefined) delete process.env.HOME;
  else process.env.HOME = savedHome;
  await new Promise((r) => server.close(r));
  await rm(outside, { recursive: true, force: true });
  await rm(fakeHome, { recursive: true, force: true });
});

describeSandbox('bash in bubblewrap', () => {
  it('bubblewrap is installed (CI installs it; without it these tests would prove nothing)', () => {
    expect(execFileSync('bwrap', ['--version'], { encoding: 'utf8' })).toMatch(/^bubblewrap /);
  });

  it('writes inside the workspace work; outside they fail with the real error plus one sandbox line', async () => {
    const dir = tempProject();
    const inside = await run(dir, 'echo in > inside.txt && cat inside.txt');
    expect(inside.content).toBe('in\n[exit code 0]');
    const blocked = await run(dir, `echo out > ${outside}/x.txt`);
    expect(blocked.is_error).toBe(true);
    expect(blocked.content).toContain('Read-only file system');
    expect(blocked.content.split('\n').at(-1)).toBe(
      '[sandbox: commands may write only inside the workspace and the temp dir, not its protected paths (.git/config, .git/hooks, .keen, .vscode, …); add a directory with --add-dir, or set sandbox.mode to "off" in your config.]',
    );
    await expect(readFile(path.join(outside, 'x.txt'))).rejects.toThrow();
  });

  it('read-only mode refuses writes in the workspace too', async () => {
    const dir = tempProject();
    const registry = createDefaultRegistry({ sandbox: { mode: 'read-only', network: false } });
    const msg = await run(dir, 'touch made.txt', registry);
    expect(msg.is_error).toBe(true);
    expect(msg.content).toContain('sandbox.mode "read-only"');
    await expect(readFile(path.join(dir, 'made.txt'))).rejects.toThrow();
  });

  it('hides ~/.ssh and KEEN_HOME', async () => {
    const dir = tempProject();
    const keenHome = tempProject({ 'auth.json': '{"token":"KEEN-HOME-SECRET"}' });
    const registry = createDefaultRegistry({ sandbox: { mode: 'workspace-write', network: false }, keenHome });
    const msg = await run(dir, `cat ~/.ssh/id_x; cat ${keenHome}/auth.json`, registry);
    expect(msg.is_error).toBe(true);
    expect(msg.content).not.toContain('PRIVATE-KEY-MATERIAL');
    expect(msg.content).not.toContain('KEEN-HOME-SECRET');
    expect(msg.content).toContain('No such file or directory');
  });

  it('sandbox.hostSockets lets a kind through: the agent socket and SSH_AUTH_SOCK reach the command', async () => {
    const dir = tempProject();
    const sock = path.join(outside, 'agent.sock');
    const agent = execFileSync('bash', ['-c', `exec ssh-agent -a ${sock} -s`], { encoding: 'utf8' });
    const pid = Number(/SSH_AGENT_PID=(\d+)/.exec(agent)?.[1]);
    const saved = process.env.SSH_AUTH_SOCK;
    process.env.SSH_AUTH_SOCK = sock;
    try {
      const probe = 'echo "sock=[$SSH_AUTH_SOCK]"; ssh-add -l; true';
      const closed = await run(dir, probe);
      expect(closed.content).toContain('sock=[]');
      const open = await run(dir, probe, createDefaultRegistry({ sandbox: { mode: 'workspace-write', network: false, hostSockets: ['ssh-agent'] } }));
      expect(open.content).toContain(`sock=[${sock}]`);
      expect(open.content).toContain('The agent has no identities.');
      // Plan mode lets no host socket through, whatever the settings say.
      const settings = { sandbox: { mode: 'workspace-write' as const, network: false, hostSockets: ['ssh-agent' as const] } };
      const planning = planModeRegistry(createDefaultRegistry(settings), () => true, mutatingCalls(defaultTools(settings)));
      expect((await run(dir, probe, planning)).content).toContain('sock=[]');
    } finally {
      if (saved === undefined) delete process.env.SSH_AUTH_SOCK;
      else process.env.SSH_AUTH_SOCK = saved;
      process.kill(pid, 'SIGTERM');
    }
  });

  it('a workspace inside a hidden folder (KEEN_HOME) still works: that folder is not hidden', async () => {
    const keenHome = tempProject({ 'project/a.txt': 'inside\n' });
    const registry = createDefaultRegistry({ sandbox: { mode: 'workspace-write', network: false }, keenHome });
    const msg = await run(path.join(keenHome, 'project'), 'cat a.txt && touch b.txt', registry);
    expect(msg.content).toBe('inside\n[exit code 0]');
  });

  it('has no network unless sandbox.network is true', async () => {
    const dir = tempProject();
    const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3`;
    const off = await run(dir, probe);
    expect(off.is_error).toBe(true);
    expect(off.content).not.toContain('hello-from-host');
    const on = await run(dir, probe, createDefaultRegistry({ sandbox: { mode: 'workspace-write', network: true } }));
    expect(on.content).toBe('hello-from-host\n[exit code 0]');
  });

  it('a command that is root inside the sandbox cannot unmount the empty folder over ~/.ssh', async () => {
    const dir = tempProject();
    const msg = await run(dir, 'id -u; umount ~/.ssh; umount -l ~/.ssh; cat ~/.ssh/id_x; mount -t tmpfs none ~/.ssh; true');
    expect(msg.content.split('\n')[0]).toBe(String(process.getuid?.()));
    expect(msg.content).not.toContain('PRIVATE-KEY-MATERIAL');
    expect(msg.content).toMatch(/umount: .*(must be superuser|Operation not permitted)/);
    await expect(readFile(path.join(fakeHome, '.ssh/id_x'), 'utf8')).resolves.toBe('PRIVATE-KEY-MATERIAL\n');
  });

  it.skipIf(process.getuid?.() !== 0)('root still writes in a workspace another user owns (a mounted folder), and still cannot unmount', async () => {
    const dir = tempProject({ 'f.txt': 'theirs\n' });
    execFileSync('chown', ['-R', '1000:1000', dir]);
    execFileSync('chmod', ['755', dir]);
    execFileSync('chmod', ['644', path.join(dir, 'f.txt')]);
    const msg = await run(dir, 'echo ours >> f.txt && touch new.txt && echo wrote; umount ~/.ssh; cat ~/.ssh/id_x; true');
    expect(msg.content).toContain('wrote');
    await expect(readFile(path.join(dir, 'f.txt'), 'utf8')).resolves.toBe('theirs\nours\n');
    expect(msg.content).not.toContain('PRIVATE-KEY-MATERIAL');
    expect(msg.content).toMatch(/umount: .*(must be superuser|Operation not permitted)/);
  });

  it('the resolver file /etc/resolv.conf links to is bound alone, not the folder with its socket', async () => {
    expect(exposedHostPaths({})).not.toContain('/run/systemd/resolve');
    // Stand-ins under the private /tmp for systemd-resolved's /run/systemd/resolve.
    const resolved = await mkdtemp(path.join(os.tmpdir(), 'keen-resolve-'));
    await writeFile(path.join(resolved, 'stub-resolv.conf'), 'nameserver 127.0.0.53\n');
    const varlink = net.createServer(() => {});
    await new Promise<void>((r) => varlink.listen(path.join(resolved, 'io.systemd.Resolve'), r));
    const etc = tempProject();
    await symlink(path.join(resolved, 'stub-resolv.conf'), path.join(etc, 'resolv.conf'));
    try {
      const ws = tempProject();
      const plan = planFor({ mode: 'workspace-write', network: false }, [ws], ws, { home: fakeHome, env: {}, resolvConf: path.join(etc, 'resolv.conf') });
      const out = execFileSync('bwrap', bwrapArgs(plan, `cat ${resolved}/stub-resolv.conf; ls -A ${resolved}; test -S ${resolved}/io.systemd.Resolve || echo no-socket`), {
        encoding: 'utf8',
      });
      expect(out).toBe('nameserver 127.0.0.53\nstub-resolv.conf\nno-socket\n');
    } finally {
      await new Promise((r) => varlink.close(r));
      await rm(resolved, { recursive: true, force: true });
    }
  });

  it('a workspace that holds the home folder is read-only for commands: no dotfile becomes writable', async () => {
    const parent = tempProject({ 'home/.bashrc': 'original\n' });
    const saved = process.env.HOME;
    process.env.HOME = path.join(parent, 'home');
    try {
      for (const cwd of [parent, path.join(parent, 'home')]) {
        const msg = await run(cwd, 'cat ~/.bashrc; echo evil >> ~/.bashrc; touch made');
        expect(msg.is_error).toBe(true);
        expect(msg.content).toContain('original');
        expect(msg.content).toContain('Read-only file system');
        expect(msg.content.split('\n').at(-1)).toContain('holds the home folder, so it is read-only for commands');
        await expect(readFile(path.join(parent, 'home/.bashrc'), 'utf8')).resolves.toBe('original\n');
        await expect(readFile(path.join(cwd, 'made'))).rejects.toThrow();
      }
      // Node (and npm) report it as EROFS, in lower case: the note comes all the same.
      const fromNode = await run(parent, `${JSON.stringify(process.execPath)} -e "require('fs').writeFileSync('made', 'x')"`);
      expect(fromNode.content).toContain('EROFS');
      expect(fromNode.content.split('\n').at(-1)).toContain('holds the home folder, so it is read-only for commands');
      // The plan for a workspace of `/`: nothing is writable, and /tmp and /proc stay the
      // sandbox's own (test/tools/trusted-path.test.ts runs the bash tool itself there).
      const marker = path.join(os.tmpdir(), `keen-root-marker-${process.pid}`);
      await writeFile(marker, 'host\n');
      const plan = planFor({ mode: 'workspace-write', network: false }, ['/'], '/', { home: path.join(parent, 'home'), env: {} });
      const probe = `touch /keen-made-by-test; cat ${marker}; ls /proc | grep -cE "^[0-9]+$"; true`;
      const root = spawnSync('bwrap', bwrapArgs(plan, probe), { encoding: 'utf8' });
      await rm(marker, { force: true });
      expect(root.stderr).toContain('Read-only file system');
      expect(root.stderr).toContain(`${marker}: No such file or directory`);
      expect(Number(root.stdout.trim())).toBeLessThan(10);
      await expect(readFile('/keen-made-by-test')).rejects.toThrow();
    } finally {
      await rm('/keen-made-by-test', { force: true });
      process.env.HOME = saved;
    }
  });

  it('runs in its own PID namespace: no Keen process is visible in /proc', async () => {
    const dir = tempProject();
    const msg = await run(dir, 'echo ppid=$PPID; ls /proc | grep -cE "^[0-9]+$"; cat /proc/1/cmdline | tr "\\0" " "');
    const [ppid, count] = msg.content.split('\n');
    expect(ppid).toBe('ppid=1');
    expect(Number(count)).toBeLessThan(10);
    expect(msg.content).not.toContain(String(process.pid) + '\n');
  });

  it('background processes end with the command', async () => {
    const dir = tempProject();
    const tag = `sleep ${1000 + Math.floor(Math.random() * 900)}.5`;
    const msg = await run(dir, `${tag} >/dev/null 2>&1 & echo started`);
    expect(msg.content).toContain('started');
    // The sleep would outlast the test many times: wait for it to go, as long as the test may run.
    const left = () => execFileSync('bash', ['-c', `pgrep -f "^${tag}$" || true`], { encoding: 'utf8' }).trim();
    while (left() !== '') await new Promise((r) => setTimeout(r, 50));
  });
});

describe('sandbox profiles', () => {
  const plan = {
    cwd: '/ws',
    writable: ['/ws'],
    hidden: [
      { path: '/h/.ssh', dir: true },
      { path: '/h/.netrc', dir: false },
    ],
    network: false,
    tmp: '/tmp',
    readOnly: false,
  };

  it('bubblewrap: root read-only, private tmp and run, workspace writable, protected paths read-only, hidden paths masked, net and pids unshared', () => {
    const args = bwrapArgs(
      {
        ...plan,
        privateDirs: ['/tmp', '/var/tmp', '/run'],
        exposed: ['/run/systemd/resolve/stub-resolv.conf'],
        protected: [
          { path: '/ws/.git/config', dir: false, exists: true },
          { path: '/ws/.vscode', dir: true, exists: false },
          { path: '/ws/.mcp.json', dir: false, exists: false },
        ],
        emptyFile: '/e/empty',
      },
      'ls',
    );
    expect(args.join(' ')).toBe(
      '--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --tmpfs /var/tmp --tmpfs /run --ro-bind-try /run/systemd/resolve/stub-resolv.conf /run/systemd/resolve/stub-resolv.conf --bind /ws /ws ' +
        '--ro-bind /ws/.git/config /ws/.git/config --tmpfs /ws/.vscode --remount-ro /ws/.vscode --ro-bind /e/empty /ws/.mcp.json ' +
        '--tmpfs /h/.ssh --ro-bind /dev/null /h/.netrc ' +
        `--unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try --die-with-parent ${capabilityArgs().join(' ')} --unshare-net --chdir /ws -- bash -c ls`,
    );
    // Root keeps only the file-permission capabilities; any other user none.
    expect(capabilityArgs(0)).toEqual(['--cap-drop', 'ALL', '--cap-add', 'CAP_DAC_OVERRIDE', '--cap-add', 'CAP_FOWNER', '--cap-add', 'CAP_CHOWN']);
    expect(capabilityArgs(1000)).toEqual(['--cap-drop', 'ALL']);
    expect(bwrapArgs({ ...plan, network: true }, 'ls')).not.toContain('--unshare-net');
  });

  it('macOS sandbox-exec: writes only in the workspace and tmp, hidden paths unreadable, no network', () => {
    const profile = seatbeltProfile(plan);
    expect(profile).toContain('(deny file-write*)');
    expect(profile).toContain('(allow file-write* (subpath "/ws") (subpath "/tmp")');
    expect(profile).toContain('(deny file-read* file-write* (subpath "/h/.ssh"))');
    expect(profile).toContain('(deny file-read* file-write* (literal "/h/.netrc"))');
    expect(profile).toContain('(deny network*)');
    expect(seatbeltProfile({ ...plan, network: true })).not.toContain('(deny network*)');
    const guarded = seatbeltProfile({ ...plan, protected: [{ path: '/ws/.vscode', dir: true, exists: false }] });
    expect(guarded).toContain('(deny file-write* (subpath "/ws/.vscode"))');
  });
});
