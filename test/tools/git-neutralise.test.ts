/**
 * The settings that turn off a repository's code-running config, checked against real git: each
 * attack first runs its marker under plain git (the attack is live), then runs nothing under the
 * neutralising environment (the one Keen's own git and allow-listed bash commands get). Without a
 * sandbox: the settings alone must hold.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv } from '../../src/security/child-env.js';
import { type NeutraliseScope, neutralisingSettings, parseConfigList, settingsEnv } from '../../src/tools/git/neutralise.js';
import { configEntriesSync, safeGitEnv } from '../../src/tools/git/safe-git.js';
import { tempDir } from '../kit/temp-dir.js';

/** A throwaway folder with a marker script: `sh mark NAME [--cat ARGS]` notes NAME, then acts as cat. */
function sandbox(): { root: string; mark: (name: string, cat?: boolean) => string; marks: () => string[] } {
  const root = tempDir('keen-gitn-');
  const script = path.join(root, 'mark.sh');
  const log = path.join(root, 'marks');
  fs.writeFileSync(script, `echo "$1" >> '${log}'\nshift\nif [ "$1" = --cat ]; then shift; exec cat "$@"; fi\nexit 0\n`);
  return {
    root,
    mark: (name, cat = false) => `sh '${script}' ${name}${cat ? ' --cat' : ''}`,
    marks: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : []),
  };
}

const ID = ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgSign=false'];

/** A repository with `files` committed before any attack is planted; `gitattributes` committed too. */
function repo(root: string, files: Record<string, string>, attributes = ''): string {
  const dir = path.join(root, 'repo');
  fs.mkdirSync(dir);
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
  for (const [rel, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, rel), text);
  if (attributes) fs.writeFileSync(path.join(dir, '.gitattributes'), attributes);
  execFileSync('git', ['add', '-A'], { cwd: dir });
  execFileSync('git', [...ID, 'commit', '-qm', 'init'], { cwd: dir });
  return dir;
}

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'ignore' });
let clock = 1_000_000;
/** Same content, a new mtime each call: git status must read the file again (through its clean filter). */
function staleStat(file: string): void {
  clock += 10;
  fs.utimesSync(file, clock, clock);
}

/** Run git in `cwd` with `env`; the exit status does not matter, only what ran. */
function run(cwd: string, args: string[], env: NodeJS.ProcessEnv): void {
  // PATH also holds the repository's folder's helper programs (git-remote-marked).
  const PATH = `${path.dirname(cwd)}${path.delimiter}${env.PATH}`;
  spawnSync('git', args, { cwd, env: { ...env, PATH }, input: 'protocol=https\nhost=example.invalid\n\n', stdio: ['pipe', 'ignore', 'ignore'], timeout: 10_000 });
}

function neutralised(cwd: string, scope: NeutraliseScope): NodeJS.ProcessEnv {
  const env = childEnv(process.env);
  return { ...env, ...settingsEnv(neutralisingSettings(configEntriesSync(cwd, env), scope)), GIT_TERMINAL_PROMPT: '0' };
}

interface Attack {
  name: string;
  /** Plants the attack; returns the git arguments that trigger it. */
  plant(s: ReturnType<typeof sandbox>): { cwd: string; args: string[]; prepare?: () => void };
}

const ATTACKS: Attack[] = [
  {
    name: 'trailer-cmd',
    plant(s) {
      const cwd = repo(s.root, { 'f.txt': 'a\n' });
      git(cwd, 'config', 'trailer.sign.cmd', s.mark('trailer-cmd'));
      return { cwd, args: ['interpret-trailers', '--trailer', 'sign=x'] };
    },
  },
  {
    name: 'trailer-command',
    plant(s) {
      const cwd = repo(s.root, { 'f.txt': 'a\n' });
      git(cwd, 'config', 'trailer.ack.command', s.mark('trailer-command'));
      return { cwd, args: ['interpret-trailers', '--trailer', 'ack=x'] };
    },
  },
  {
    name: 'tar-command',
    plant(s) {
      const cwd = repo(s.root, { 'f.txt': 'a\n' });
      git(cwd, 'config', 'tar.tar.gz.command', s.mark('tar-command'));
      return { cwd, args: ['archive', '--format=tar.gz', 'HEAD'] };
    },
  },
  {
    name: 'filter-clean',
    plant(s) {
      const cwd = repo(s.root, { 'f.txt': 'a\n' }, '* filter=x\n');
      git(cwd, 'config', 'filter.x.clean', s.mark('filter-clean', true));
      git(cwd, 'config', 'filter.x.required', 'true');
      return { cwd, args: ['status', '--short'], prepare: () => staleStat(path.join(cwd, 'f.txt')) };
    },
  },
  {
    name: 'filter-process',
    plant(s) {
      const cwd = repo(s.root, { 'f.txt': 'a\n' }, '* filter=Proc\n');
      git(cwd, 'config', 'filter.Proc.process', s.mark('filter-process'));
      return { cwd, args: ['status', '--short'], prepare: () => staleStat(path.join(cwd, 'f.txt')) };
    },
  },
  {
    name: 'filter-smudge',
    plant(s) {
      const cwd = repo(s.root, { 'f.txt': 'a\n' }, '* filter=sm\n');
      git(cwd, 'config', 'filter.sm.smudge', s.mark('filter-smudge', true));
      return { cwd, args: ['checkout', '--', 'f.txt'], prepare: () => fs.rmSync(path.join(cwd, 'f.txt'), { force: true }) };
    },
  },
  {
    name: 'included-filter',
    plant(s) {
      const cwd = repo(s.root, { 'f.txt': 'a\n' }, '* filter=inc\n');
      const extra = path.join(s.root, 'extra.cfg');
      fs.writeFileSync(extra, `[filter "inc"]\n\tclean = "${s.mark('included-filter', true)}"\n`);
      // Defined only in a file that an includeIf brings in when git runs in this repository.
      git(cwd, 'config', `includeIf.gitdir:${fs.realpathSync(cwd)}/.git.path`, extra);
      return { cwd, args: ['status', '--short'], prepare: () => staleStat(path.join(cwd, 'f.txt')) };
    },
  },
  {
    name: 'fsmonitor',
    plant(s) {
      const cwd = repo(s.root, { 'f.txt': 'a\n' });
      git(cwd, 'config', 'core.fsmonitor', s.mark('fsmonitor'));
      return { cwd, args: ['status', '--short'] };
    },
  },
  {
    name: 'textconv',
    plant(s) {
      const cwd = repo(s.root, { 'f.txt': 'a\n' }, '* diff=tc\n');
      git(cwd, 'config', 'diff.tc.textconv', s.mark('textconv', true));
      fs.writeFileSync(path.join(cwd, 'f.txt'), 'b\n');
      return { cwd, args: ['diff'] };
    },
  },
  {
    name: 'diff-command',
    plant(s) {
      const cwd = repo(s.root, { 'f.txt': 'a\n' }, '* diff=dc\n');
      git(cwd, 'config', 'diff.dc.command', s.mark('diff-command'));
      fs.writeFileSync(path.join(cwd, 'f.txt'), 'b\n');
      return { cwd, args: ['diff'] };
    },
  },
  {
    name: 'diff-external',
    plant(s) {
      const cwd = repo(s.root, { 'f.txt': 'a\n' });
      git(cwd, 'config', 'diff.external', s.mark('diff-external'));
      fs.writeFileSync(path.join(cwd, 'f.txt'), 'b\n');
      return { cwd, args: ['diff'] };
    },
  },
  {
    name: 'hook',
    plant(s) {
      const cwd = repo(s.root, { 'f.txt': 'a\n' });
      fs.writeFileSync(path.join(cwd, '.git/hooks/pre-commit'), `#!/bin/sh\n${s.mark('hook')}\n`, { mode: 0o755 });
      return { cwd, args: [...ID, 'commit', '-q', '--allow-empty', '-m', 'x'] };
    },
  },
  {
    name: 'alias',
    plant(s) {
      const cwd = repo(s.root, { 'f.txt': 'a\n' });
      git(cwd, 'config', 'alias.st', `!${s.mark('alias')}`);
      return { cwd, args: ['st'] };
    },
  },
  {
    name: 'editor',
    plant(s) {
      const cwd = repo(s.root, { 'f.txt': 'a\n' });
      git(cwd, 'config', 'core.editor', s.mark('editor'));
      return { cwd, args: [...ID, 'commit', '--allow-empty'] };
    },
  },
  {
    name: 'ssh-command',
    plant(s) {
      const cwd = repo(s.root, { 'f.txt': 'a\n' });
      git(cwd, 'config', 'core.sshCommand', s.mark('ssh-command'));
      return { cwd, args: ['ls-remote', 'ssh://example.invalid/r.git'] };
    },
  },
  {
    name: 'upload-pack',
    plant(s) {
      const cwd = repo(s.root, { 'f.txt': 'a\n' });
      git(cwd, 'remote', 'add', 'origin', cwd);
      git(cwd, 'config', 'remote.origin.uploadpack', s.mark('upload-pack'));
      return { cwd, args: ['ls-remote', 'origin'] };
    },
  },
  {
    name: 'merge-driver',
    plant(s) {
      const cwd = repo(s.root, { 'f.txt': 'a\n' }, '* merge=md\n');
      git(cwd, 'checkout', '-q', '-b', 'other');
      fs.writeFileSync(path.join(cwd, 'f.txt'), 'other\n');
      git(cwd, ...ID, 'commit', '-qam', 'other');
      git(cwd, 'checkout', '-q', 'main');
      fs.writeFileSync(path.join(cwd, 'f.txt'), 'main\n');
      git(cwd, ...ID, 'commit', '-qam', 'main');
      git(cwd, 'config', 'merge.md.driver', s.mark('merge-driver'));
      return { cwd, args: [...ID, 'merge', '-q', '--no-edit', 'other'], prepare: () => spawnSync('git', ['merge', '--abort'], { cwd, stdio: 'ignore' }) };
    },
  },
  {
    name: 'gpg-program',
    plant(s) {
      const cwd = repo(s.root, { 'f.txt': 'a\n' });
      // A commit that carries a signature: showing it runs gpg.program.
      const tree = execFileSync('git', ['write-tree'], { cwd, encoding: 'utf8' }).trim();
      const body = `tree ${tree}\nauthor t <t@x> 1 +0000\ncommitter t <t@x> 1 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n -----END PGP SIGNATURE-----\n\nsigned\n`;
      const sha = execFileSync('git', ['hash-object', '-t', 'commit', '-w', '--stdin'], { cwd, input: body, encoding: 'utf8' }).trim();
      // gpg.program is started directly, not through a shell: a program file.
      const program = path.join(s.root, 'gpg-marked');
      fs.writeFileSync(program, `#!/bin/sh\n${s.mark('gpg-program')}\n`, { mode: 0o755 });
      git(cwd, 'config', 'gpg.program', program);
      return { cwd, args: ['log', '--show-signature', '-1', sha] };
    },
  },
  {
    name: 'credential-helper',
    plant(s) {
      const cwd = repo(s.root, { 'f.txt': 'a\n' });
      git(cwd, 'config', 'credential.helper', `!${s.mark('credential-helper')}`);
      git(cwd, 'config', 'credential.https://example.invalid.helper', `!${s.mark('credential-helper')}`);
      return { cwd, args: ['credential', 'fill'] };
    },
  },
  {
    name: 'remote-vcs',
    plant(s) {
      const cwd = repo(s.root, { 'f.txt': 'a\n' });
      // A remote helper that exists: the repository picks it by name (a name with a slash can
      // reach a program the repository ships).
      fs.writeFileSync(path.join(s.root, 'git-remote-marked'), `#!/bin/sh\n${s.mark('remote-vcs')}\n`, { mode: 0o755 });
      git(cwd, 'config', 'remote.origin.vcs', 'marked');
      git(cwd, 'config', 'remote.origin.url', 'x');
      return { cwd, args: ['ls-remote', 'origin'] };
    },
  },
];

describe('neutralising a repository’s code-running config', () => {
  for (const attack of ATTACKS) {
    it(`${attack.name}: runs under plain git, not under the neutralising settings`, () => {
      const s = sandbox();
      const { cwd, args, prepare } = attack.plant(s);
      prepare?.();
      run(cwd, args, { ...process.env, GIT_TERMINAL_PROMPT: '0' });
      expect(s.marks()).toContain(attack.name);
      fs.rmSync(path.join(s.root, 'marks'));
      for (const scope of ['repository', 'all'] as const) {
        prepare?.();
        run(cwd, args, neutralised(cwd, scope));
        expect(s.marks(), scope).toEqual([]);
      }
    });
  }

  it('a filter of the user’s own global config still runs for "repository", not for "all"', () => {
    const s = sandbox();
    const cwd = repo(s.root, { 'f.txt': 'a\n' }, '* filter=lfsish\n');
    const global = path.join(s.root, 'gitconfig');
    fs.writeFileSync(global, `[filter "lfsish"]\n\tclean = "${s.mark('global-filter', true)}"\n`);
    const withGlobal = (env: NodeJS.ProcessEnv) => ({ ...env, GIT_CONFIG_GLOBAL: global });
    const entries = configEntriesSync(cwd, withGlobal(childEnv(process.env)));
    expect(entries.some((e) => e.scope === 'global' && e.key === 'filter.lfsish.clean')).toBe(true);
    for (const [scope, ran] of [
      ['repository', ['global-filter']],
      ['all', []],
    ] as const) {
      staleStat(path.join(cwd, 'f.txt'));
      run(cwd, ['status', '--short'], withGlobal({ ...childEnv(process.env), ...settingsEnv(neutralisingSettings(entries, scope)) }));
      expect([...new Set(s.marks())], scope).toEqual(ran);
      fs.rmSync(path.join(s.root, 'marks'), { force: true });
    }
  });

  it('the environment of Keen’s own git holds no credential, and the settings follow pairs already set', () => {
    const env = safeGitEnv([], 'all', {
      PATH: '/usr/bin',
      HOME: '/home/u',
      ANTHROPIC_API_KEY: 'sk-ant-x',
      AWS_SECRET_ACCESS_KEY: 'aws',
      GITHUB_TOKEN: 'ghp',
      GOOGLE_APPLICATION_CREDENTIALS: '/k.json',
      AZURE_CLIENT_SECRET: 'az',
      GIT_ASKPASS: '/evil',
      GIT_SSH_COMMAND: '/evil',
      GIT_CONFIG_PARAMETERS: "'core.fsmonitor'='/evil'",
      GIT_DIR: '/r/.git',
      LC_ALL: 'C',
    });
    expect(
      Object.keys(env)
        .filter((k) => !k.startsWith('GIT_CONFIG_'))
        .sort(),
    ).toEqual(['GIT_DIR', 'GIT_OPTIONAL_LOCKS', 'GIT_TERMINAL_PROMPT', 'HOME', 'LC_ALL', 'PATH']);
    expect(settingsEnv([['a.b', '1']], { GIT_CONFIG_COUNT: '2' })).toEqual({ GIT_CONFIG_KEY_2: 'a.b', GIT_CONFIG_VALUE_2: '1', GIT_CONFIG_COUNT: '3' });
  });

  it('keys git only honours from config files get their harmless value; unrelated keys stay', () => {
    const entries = parseConfigList(
      [
        'local\0submodule.lib.update\n!touch x',
        'local\0submodule.ok.update\nrebase',
        'local\0interactive.diffFilter\ntouch x',
        'local\0user.name\nme',
        'global\0alias.co\n!touch x',
      ].join('\0') + '\0',
    );
    const repository = new Map(neutralisingSettings(entries, 'repository'));
    expect(repository.get('submodule.lib.update')).toBe('checkout');
    expect(repository.has('submodule.ok.update')).toBe(false);
    expect(repository.get('interactive.diffFilter')).toBe('');
    expect(repository.has('user.name')).toBe(false);
    // The user's own alias stays for a command an allow rule let through; Keen's own git drops it.
    expect(repository.has('alias.co')).toBe(false);
    expect(new Map(neutralisingSettings(entries, 'all')).get('alias.co')).toBe('');
  });

  it('parses git’s NUL-separated list, value-less keys included', () => {
    expect(parseConfigList('local\0filter.X.clean\ntouch a; cat\0local\0core.bare\0')).toEqual([
      { scope: 'local', key: 'filter.X.clean', value: 'touch a; cat' },
      { scope: 'local', key: 'core.bare' },
    ]);
  });
});
