/**
 * A repository runs nothing through Keen's own git (issue 24): `keen run "hello"` in an
 * untrusted repository whose config would run a program from git status — a clean filter, a
 * process filter, a filter an includeIf brings in, a submodule's filter, an fsmonitor hook —
 * runs none of them, with the sandbox and without one (the neutralising settings alone), and
 * the status still reaches the request. git gets no credential in its environment. A bash
 * command an allow rule lets through (`bash(git status*)`) runs none of the repository's
 * fsmonitor, filters, aliases, hooks or textconv either.
 * Each attack is first shown live: plain git runs its marker.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAKE_KEY, toolResults, useCliRig } from './cli-fixtures.js';
import { systemText } from './context-fixtures.js';
import type { Workspace } from '../kit/temp-dir.js';
import { describeSandbox } from '../kit/sandbox.js';

const { rig, workspace } = useCliRig();

const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
const ID = ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgSign=false'];
const AWS_SECRET = 'aws-e2e-SECRET-0d9c';
const GITHUB_TOKEN = 'ghp_e2eGitSafetyToken0123456789abcdef';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'ignore' });

/** `sh mark NAME [--cat]`: appends NAME to the log, then acts as cat (a filter that works). */
function markerScript(dir: string): { mark: (name: string, cat?: boolean) => string; marks: () => string[]; clear: () => void } {
  fs.mkdirSync(dir, { recursive: true });
  const script = path.join(dir, 'mark.sh');
  const log = path.join(dir, 'marks');
  fs.writeFileSync(script, `echo "$1" >> '${log}'\nshift\nif [ "$1" = --cat ]; then shift; exec cat "$@"; fi\nexit 0\n`);
  return {
    mark: (name, cat = false) => `sh '${script}' ${name}${cat ? ' --cat' : ''}`,
    marks: () => (fs.existsSync(log) ? [...new Set(fs.readFileSync(log, 'utf8').trim().split('\n'))].sort() : []),
    clear: () => fs.rmSync(log, { force: true }),
  };
}

let clock = 1_000_000;
/** Same content, a new mtime: git status must read the files again, through their filters. */
function staleStats(files: string[]): void {
  clock += 100;
  for (const f of files) fs.utimesSync(f, clock, clock);
}

/** A repository in `ws.cwd` planted with every git-status attack; returns its marker log and the files to make stale. */
function hostileRepo(ws: Workspace) {
  const root = path.dirname(ws.cwd);
  const m = markerScript(path.join(root, 'markers'));
  const cwd = ws.cwd;
  // The submodule: its own config defines the filter its own .gitattributes names.
  const subSrc = path.join(root, 'subsrc');
  fs.mkdirSync(subSrc);
  git(subSrc, 'init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(subSrc, 's.txt'), 's\n');
  fs.writeFileSync(path.join(subSrc, '.gitattributes'), '* filter=subf\n');
  git(subSrc, 'add', '-A');
  git(subSrc, ...ID, 'commit', '-qm', 'sub');

  git(cwd, 'init', '-q', '-b', 'main');
  for (const f of ['a.txt', 'c.txt', 'z.txt']) fs.writeFileSync(path.join(cwd, f), `${f}\n`);
  fs.writeFileSync(path.join(cwd, '.gitattributes'), 'a.txt filter=x\nc.txt filter=inc\nz.txt filter=Proc\n');
  git(cwd, 'add', '-A');
  git(cwd, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', subSrc, '0sub');
  git(cwd, ...ID, 'commit', '-qm', 'init');
  fs.writeFileSync(path.join(cwd, 'new.txt'), 'untracked\n');
  // Both indexes hold old, not racy, stats (a racily clean file is read again on every status):
  // git status then reads exactly the files made stale, and looks inside the submodule.
  for (const f of ['a.txt', 'c.txt', 'z.txt', '0sub', '0sub/s.txt', '0sub/.gitattributes']) fs.utimesSync(path.join(cwd, f), 500_000, 500_000);
  git(cwd, 'update-index', '-q', '--refresh');
  git(path.join(cwd, '0sub'), 'update-index', '-q', '--refresh');

  git(cwd, 'config', 'filter.x.clean', m.mark('filter-clean', true));
  git(cwd, 'config', 'filter.x.required', 'true');
  git(cwd, 'config', 'filter.Proc.process', m.mark('filter-process'));
  const extra = path.join(root, 'extra.cfg');
  fs.writeFileSync(extra, `[filter "inc"]\n\tclean = "${m.mark('included-filter', true)}"\n`);
  git(cwd, 'config', `includeIf.gitdir:${fs.realpathSync(cwd)}/.git.path`, extra);
  git(cwd, 'config', 'core.fsmonitor', m.mark('fsmonitor'));
  git(path.join(cwd, '0sub'), 'config', 'filter.subf.clean', m.mark('submodule-filter', true));

  const stale = ['a.txt', 'c.txt', '0sub/s.txt', 'z.txt'].map((f) => path.join(cwd, f));
  return { ...m, stale };
}

/** A folder for PATH: a `git` that logs its environment and runs the real one, and, for `bare`, only the programs git and the markers need (no bwrap: no sandbox). */
function gitShim(ws: Workspace, bare: boolean): { bin: string; envLog: string } {
  const bin = path.join(path.dirname(ws.cwd), bare ? 'bare-bin' : 'bin');
  fs.mkdirSync(bin);
  const envLog = path.join(bin, 'git-env.log');
  fs.writeFileSync(path.join(bin, 'git'), `#!/bin/sh\nenv >> '${envLog}'\nexec '${REAL_GIT}' "$@"\n`, { mode: 0o755 });
  if (bare) {
    for (const tool of ['sh', 'bash', 'cat', 'env']) {
      const real = execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim();
      fs.symlinkSync(real, path.join(bin, tool));
    }
  }
  return { bin, envLog };
}

describe("Keen's own git status runs no repository code", () => {
  for (const variant of ['in the sandbox', 'without a sandbox'] as const) {
    it(`keen run "hello" in an untrusted hostile repository, ${variant}: no marker, no credential, the status reaches the request`, async () => {
      const ws = workspace();
      const repo = hostileRepo(ws);

      // Each attack is live: plain git status runs every marker. (A process filter that fails
      // stops git status, so it goes second, alone.)
      const plainStatus = () => spawnSync('git', ['status', '--short'], { cwd: ws.cwd, stdio: 'ignore', env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } });
      staleStats(repo.stale.filter((f) => !f.endsWith('z.txt')));
      plainStatus();
      staleStats(repo.stale.filter((f) => f.endsWith('z.txt')));
      plainStatus();
      expect(repo.marks()).toEqual(['filter-clean', 'filter-process', 'fsmonitor', 'included-filter', 'submodule-filter']);
      repo.clear();
      staleStats(repo.stale);

      const shim = gitShim(ws, variant === 'without a sandbox');
      const PATH = variant === 'without a sandbox' ? shim.bin : `${shim.bin}${path.delimiter}${process.env.PATH}`;
      const from = rig.fake.requests.length;
      rig.fake.enqueue({ steps: [{ text: 'hi' }] });
      const r = await rig.keen(ws, ['run', 'hello'], { env: { PATH, AWS_SECRET_ACCESS_KEY: AWS_SECRET, GITHUB_TOKEN } });

      expect(r.code, r.stderr).toBe(0);
      // The git Keen started (at least its config read) saw no credential.
      const seen = fs.readFileSync(shim.envLog, 'utf8');
      // The trusted PATH: every folder as its real path (/bin is /usr/bin on a merged /usr).
      const realPATH = PATH.split(path.delimiter)
        .map((d) => (fs.existsSync(d) ? fs.realpathSync(d) : d))
        .join(path.delimiter);
      expect(seen).toContain(`PATH=${realPATH}`);
      for (const secret of [FAKE_KEY, AWS_SECRET, GITHUB_TOKEN]) expect(seen).not.toContain(secret);
      expect(repo.marks()).toEqual([]);
      const system = systemText(rig.since(from)[0]!);
      expect(system).toContain('Git status:\n## main');
      expect(system).toContain('?? new.txt');
    });
  }
});

describe('a filter planted by sandboxed bash', () => {
  it('does not run at the next launch: its git status turns it off', async () => {
    const ws = workspace();
    const cwd = ws.cwd;
    const m = markerScript(path.join(path.dirname(cwd), 'markers'));
    git(cwd, 'init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(cwd, 'a.txt'), 'a\n');
    git(cwd, 'add', '-A');
    git(cwd, ...ID, 'commit', '-qm', 'init');
    fs.utimesSync(path.join(cwd, 'a.txt'), 500_000, 500_000);
    git(cwd, 'update-index', '-q', '--refresh');

    // Launch 1: the model plants a filter from inside the sandbox.
    const plant = `git config filter.x.clean "${m.mark('planted-filter', true)}" && echo 'a.txt filter=x' > .gitattributes`;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'bash', args: { command: plant } } }] }, { steps: [{ text: 'done' }] });
    const first = await rig.keen(ws, ['run', '--yolo', 'set up the repo'], {});
    expect(first.code, first.stderr).toBe(0);
    // Where the sandbox lets bash write .git/config the filter is there; where it protects the
    // file, nothing was planted and the launch below has nothing to run either.
    const planted = spawnSync('git', ['config', 'filter.x.clean'], { cwd, encoding: 'utf8' }).stdout.trim() !== '';
    if (planted) {
      staleStats([path.join(cwd, 'a.txt')]);
      spawnSync('git', ['status', '--short'], { cwd, stdio: 'ignore', env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } });
      expect(m.marks()).toEqual(['planted-filter']);
      m.clear();
    }
    m.clear();

    // Launch 2: untrusted, no tools.
    staleStats([path.join(cwd, 'a.txt')]);
    rig.fake.enqueue({ steps: [{ text: 'hi' }] });
    const from = rig.fake.requests.length;
    const second = await rig.keen(ws, ['run', 'hello'], {});
    expect(second.code, second.stderr).toBe(0);
    expect(systemText(rig.since(from)[0]!)).toContain('Git status:\n## main');
    expect(m.marks()).toEqual([]);
  });
});

describe('a bash command allowed by rule runs no repository code through git', () => {
  it('git status / an alias / git commit / git diff allowed by rules, sandboxed: no fsmonitor, filter, alias, hook or textconv runs', async () => {
    const ws = workspace();
    const cwd = ws.cwd;
    // Markers inside the workspace: the sandbox lets commands write there.
    const m = markerScript(path.join(cwd, '.tools'));
    git(cwd, 'init', '-q', '-b', 'main');
    fs.appendFileSync(path.join(cwd, '.git/info/exclude'), '.tools/\n');
    fs.writeFileSync(path.join(cwd, 'a.txt'), 'a\n');
    fs.writeFileSync(path.join(cwd, 't.txt'), 't\n');
    fs.writeFileSync(path.join(cwd, '.gitattributes'), 'a.txt filter=x\nt.txt diff=tc\n');
    git(cwd, 'add', '-A');
    git(cwd, ...ID, 'commit', '-qm', 'init');
    git(cwd, 'config', 'user.name', 't');
    git(cwd, 'config', 'user.email', 't@example.invalid');
    git(cwd, 'config', 'core.fsmonitor', m.mark('fsmonitor'));
    git(cwd, 'config', 'filter.x.clean', m.mark('filter-clean', true));
    git(cwd, 'config', 'alias.lg', `!${m.mark('alias')}`);
    git(cwd, 'config', 'diff.tc.textconv', m.mark('textconv', true));
    fs.writeFileSync(path.join(cwd, '.git/hooks/pre-commit'), `#!/bin/sh\n${m.mark('hook')}\n`, { mode: 0o755 });
    fs.writeFileSync(path.join(cwd, 't.txt'), 't2\n');
    const a = path.join(cwd, 'a.txt');
    const commands = ['git status --short', 'git lg', 'git commit -q --allow-empty -m x', 'git diff t.txt'];

    // Live: plain git runs each.
    staleStats([a]);
    for (const c of commands) execFileSync('sh', ['-c', c], { cwd, stdio: 'ignore', env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } });
    expect(m.marks()).toEqual(['alias', 'filter-clean', 'fsmonitor', 'hook', 'textconv']);
    m.clear();
    staleStats([a]);

    fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ permissions: { allow: ['bash(git status*)', 'bash(git lg*)', 'bash(git commit*)', 'bash(git diff*)'] } }));
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: commands.map((command) => ({ toolCall: { name: 'bash', args: { command } } })) }, { steps: [{ text: 'done' }] });
    const r = await rig.keen(ws, ['run', 'check the repo'], {});

    expect(r.code, r.stderr).toBe(0);
    const results = toolResults(rig.since(from).at(-1)!);
    expect(results).toHaveLength(4);
    expect(results[0]!.text).toContain('M t.txt');
    expect(results[0]!.isError).toBe(false);
    // The textconv-less diff shows the file as it is.
    expect(results[3]!.text).toContain('+t2');
    expect(m.marks()).toEqual([]);
  });
});

describeSandbox('the sandbox program', () => {
  it('is never one the repository ships, even with a relative folder on PATH', async () => {
    const ws = workspace();
    const marker = path.join(path.dirname(ws.cwd), 'REPO-BWRAP-RAN');
    const realBwrap = execFileSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).trim();
    fs.mkdirSync(path.join(ws.cwd, 'node_modules/.bin'), { recursive: true });
    fs.writeFileSync(path.join(ws.cwd, 'node_modules/.bin/bwrap'), `#!/bin/sh\ntouch '${marker}'\nexec '${realBwrap}' "$@"\n`, { mode: 0o755 });
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'bash', args: { command: 'echo sandboxed-hi' } } }] }, { steps: [{ text: 'done' }] });
    const from = rig.fake.requests.length;
    const r = await rig.keen(ws, ['run', '--yolo', 'say hi'], { env: { PATH: `node_modules/.bin${path.delimiter}${process.env.PATH}` } });
    expect(r.code, r.stderr).toBe(0);
    expect(toolResults(rig.since(from).at(-1)!)[0]!.text).toContain('sandboxed-hi');
    expect(fs.existsSync(marker)).toBe(false);
  });
});

describe('a git config Keen cannot read whole', () => {
  /** A repository whose filter would run from git status; `plant` makes its config unreadable in full. */
  function filteredRepo(ws: Workspace, plant: (gitDir: string) => void) {
    const cwd = ws.cwd;
    const m = markerScript(path.join(path.dirname(cwd), 'markers'));
    git(cwd, 'init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(cwd, 'a.txt'), 'a\n');
    fs.writeFileSync(path.join(cwd, '.gitattributes'), 'a.txt filter=x\n');
    git(cwd, 'add', '-A');
    git(cwd, ...ID, 'commit', '-qm', 'init');
    fs.utimesSync(path.join(cwd, 'a.txt'), 500_000, 500_000);
    git(cwd, 'update-index', '-q', '--refresh');
    git(cwd, 'config', 'filter.x.clean', m.mark('filter-clean', true));
    plant(path.join(cwd, '.git'));
    return m;
  }

  const cases: [string, (gitDir: string) => void][] = [
    // The listing is cut at its output cap: the filter above the padding slipped through.
    ['a 5 MB .git/config', (d) => fs.appendFileSync(path.join(d, 'config'), `[pad]\n${`\tk = ${'x'.repeat(1000)}\n`.repeat(5000)}`)],
    // The listing waits on its stdin, git status reads an empty one.
    ['an include.path of /dev/stdin', (d) => fs.appendFileSync(path.join(d, 'config'), '[include]\n\tpath = /dev/stdin\n')],
    [
      'an include.path naming a fifo',
      (d) => {
        execFileSync('mkfifo', [path.join(d, 'pipe.cfg')]);
        fs.appendFileSync(path.join(d, 'config'), '[include]\n\tpath = pipe.cfg\n');
      },
    ],
  ];
  for (const [name, plant] of cases) {
    it(`${name}: Keen runs no git status, and says so in the prompt`, async () => {
      const ws = workspace();
      const m = filteredRepo(ws, plant);
      // Without a sandbox (only the neutralising settings stand between the filter and a run).
      const shim = gitShim(ws, true);
      staleStats([path.join(ws.cwd, 'a.txt')]);
      rig.fake.enqueue({ steps: [{ text: 'hi' }] });
      const from = rig.fake.requests.length;
      const r = await rig.keen(ws, ['run', 'hello'], { env: { PATH: shim.bin } });
      expect(r.code, r.stderr).toBe(0);
      expect(m.marks()).toEqual([]);
      const system = systemText(rig.since(from)[0]!);
      expect(system).not.toContain('## main');
      expect(system).toMatch(/git status is not run: the repository's git config could not be read in full/);
      // No git ran at all: the config files were looked at first.
      expect(fs.existsSync(shim.envLog)).toBe(false);
    }, 20_000);
  }
});
