/**
 * The system prompt's git status never stalls a turn: it runs in a child process, is stopped at
 * a time cap and an output cap, and says when it was cut. Against real git repositories; the time
 * cap against a command that never ends (no test waits on a clock to pass or fail).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { GIT_STATUS_MAX_LINES, GitStatusCache, formatGitStatus, mayBeInRepository, readGitStatus } from '../../src/project/git-status.js';
import { buildSystemPrompt } from '../../src/project/system-prompt.js';
import { countingGit } from '../kit/counting-git.js';
import { tempDir } from '../kit/temp-dir.js';

function repo(files: number): string {
  const dir = tempDir('keen-git-');
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
  for (let i = 0; i < files; i++) fs.writeFileSync(path.join(dir, `file-${String(i).padStart(3, '0')}.txt`), 'x\n');
  return dir;
}

/** Tests not about the turn wait let a turn wait for git as long as it takes (a loaded machine is slow). */
const LONG_WAIT = 60_000;

/** A stand-in that prints a branch line and then never ends (a huge repository's git status). */
const HANGS = { file: process.execPath, args: ['-e', "process.stdout.write('## main\\n?? a.txt\\n'); setInterval(() => {}, 1000)"] };

describe('git status in the system prompt', () => {
  it('runs asynchronously at session open and shows at most 40 lines, saying how many were left out', async () => {
    const dir = repo(60);
    const git = new GitStatusCache(dir, { turnWaitMs: LONG_WAIT });
    git.refresh();
    await git.beforeTurn();
    const text = git.text()!;
    const lines = text.split('\n');
    expect(lines[0]).toBe('## No commits yet on main');
    expect(lines).toHaveLength(GIT_STATUS_MAX_LINES + 1);
    expect(lines.at(-1)).toBe(`… ${61 - GIT_STATUS_MAX_LINES} more`);
    const prompt = buildSystemPrompt({ cwd: dir, gitStatus: () => git.text() });
    expect(prompt).toContain('Git status:\n## No commits yet on main\n?? file-000.txt');
    git.close();
  });

  it('stops git at the output cap and says the list was cut', async () => {
    const dir = repo(60);
    const run = await readGitStatus(dir, { maxBytes: 200 }).done;
    expect(run.cut).toBe(true);
    expect(run.output!.length).toBeLessThanOrEqual(200);
    const text = formatGitStatus(run)!;
    expect(text.split('\n').at(-1)).toMatch(/^… more changes not shown \(output cut at \d+ KB\)$/);
    // Only whole lines are shown.
    for (const line of text.split('\n').slice(1, -1)) expect(line).toMatch(/^\?\? file-\d{3}\.txt$/);
  });

  it('stops a git status that does not finish at the time cap and says so', async () => {
    const run = await readGitStatus(os.tmpdir(), { timeoutMs: 100, command: HANGS }).done;
    expect(run.timedOut).toBe(true);
    expect(formatGitStatus(run, 100)!.split('\n').at(-1)).toMatch(/^… git status did not finish within 0\.1 s; (the list is incomplete|status unknown)$/);
  });

  it('a cut run keeps the whole lines it printed and drops a partial last one', () => {
    expect(formatGitStatus({ output: '## main\n?? a.txt\n?? b.t', timedOut: true }, 2000)).toBe(
      '## main\n?? a.txt\n… git status did not finish within 2 s; the list is incomplete',
    );
    expect(formatGitStatus({ output: '', timedOut: true }, 2000)).toBe('… git status did not finish within 2 s; status unknown');
    expect(formatGitStatus({ output: '## main\n M a.ts\n' })).toBe('## main\n M a.ts');
    expect(formatGitStatus({})).toBeUndefined();
  });

  it('a turn waits for a slow status only briefly and goes on with a note; close stops git', async () => {
    const git = new GitStatusCache(os.tmpdir(), { timeoutMs: 600_000, turnWaitMs: 20, command: HANGS });
    git.refresh();
    // Resolves although the command never ends: the turn is not held up by git.
    await git.beforeTurn();
    expect(git.text()).toBe('… git status is still running (a large repository?); not shown yet');
    git.close();
  });

  it('the first turn uses the run the session open started; every later turn, or a turn long after, runs git again', async () => {
    const dir = tempDir('keen-gitcount-');
    const { command: COUNTS, runs, reset } = countingGit(dir);
    let clock = 0;
    const git = new GitStatusCache(dir, { command: COUNTS, now: () => clock, turnWaitMs: LONG_WAIT });
    git.refresh(); // the session opens
    clock = 200;
    await git.beforeTurn(); // its first turn
    expect(runs()).toBe(1);
    expect(git.text()).toContain('run-1.txt');
    clock = 400;
    await git.beforeTurn(); // the next turn: the tools of the first may have changed files
    expect(runs()).toBe(2);
    expect(git.text()).toContain('run-2.txt');
    git.close();

    // A REPL opened long before its first prompt: the open's run is too old to stand for now.
    reset();
    clock = 0;
    const slow = new GitStatusCache(dir, { command: COUNTS, now: () => clock, turnWaitMs: LONG_WAIT });
    slow.refresh();
    await vi.waitFor(() => expect(slow.text()).toContain('run-1.txt'), { timeout: 10_000 });
    clock = 60_000;
    await slow.beforeTurn();
    expect(runs()).toBe(2);
    expect(slow.text()).toContain('run-2.txt');
    slow.close();
  });

  it('outside a repository there is no git status line', async () => {
    const dir = tempDir('keen-nogit-');
    const git = new GitStatusCache(dir, { turnWaitMs: LONG_WAIT });
    git.refresh();
    await git.beforeTurn();
    // git exits non-zero in a folder that is no repository (unless a parent is one).
    const inRepo = (() => {
      try {
        execFileSync('git', ['rev-parse'], { cwd: dir, stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    })();
    if (!inRepo) expect(buildSystemPrompt({ cwd: dir, gitStatus: () => git.text() })).not.toContain('Git status');
    git.close();
  });

  it('git is started only where it can find a repository: a folder below one, or GIT_DIR; never outside any', async () => {
    // A git on PATH that notes each start, then runs the real one.
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const bin = tempDir('keen-git-bin-');
    const marker = path.join(bin, 'starts.log');
    fs.writeFileSync(path.join(bin, 'git'), `#!/bin/sh\necho "$PWD" >> '${marker}'\nexec '${realGit}' "$@"\n`, { mode: 0o755 });
    const starts = () => (fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8').trim().split('\n').length : 0);
    const saved = { PATH: process.env.PATH, GIT_DIR: process.env.GIT_DIR, GIT_WORK_TREE: process.env.GIT_WORK_TREE };
    const status = async (cwd: string) => {
      const git = new GitStatusCache(cwd, { turnWaitMs: LONG_WAIT });
      git.refresh();
      await git.beforeTurn();
      git.close();
      return git.text();
    };
    const below = path.join(repo(1), 'src', 'deep');
    fs.mkdirSync(below, { recursive: true });
    const elsewhere = repo(2);
    try {
      process.env.PATH = `${bin}${path.delimiter}${saved.PATH}`;
      delete process.env.GIT_DIR;
      delete process.env.GIT_WORK_TREE;

      expect(await status(below)).toContain('## No commits yet on main');
      // A status starts git more than once (its config is read first): count runs, not processes.
      const afterBelow = starts();
      expect(afterBelow).toBeGreaterThan(0);

      const outside = tempDir('keen-nogit-');
      if (!mayBeInRepository(outside)) {
        expect(await status(outside)).toBeUndefined();
        expect(starts()).toBe(afterBelow);
      }

      process.env.GIT_DIR = path.join(elsewhere, '.git');
      process.env.GIT_WORK_TREE = elsewhere;
      expect(await status(outside)).toContain('?? file-001.txt');
      expect(starts()).toBeGreaterThan(afterBelow);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('the asynchronous run keeps the safe options: a repository cannot run its fsmonitor or pager', async () => {
    const dir = repo(1);
    const marker = path.join(dir, 'PWNED');
    execFileSync('git', ['config', 'core.fsmonitor', `touch ${marker}; echo`], { cwd: dir });
    execFileSync('git', ['config', 'core.pager', `touch ${marker}; cat`], { cwd: dir });
    const git = new GitStatusCache(dir, { turnWaitMs: LONG_WAIT });
    git.refresh();
    await git.beforeTurn();
    expect(git.text()).toContain('?? file-000.txt');
    expect(fs.existsSync(marker)).toBe(false);
    git.close();
  });

  it('runs no filter of the repository or of a config it includes, asynchronously or not', async () => {
    const dir = repo(1);
    const marker = path.join(dir, 'PWNED');
    fs.writeFileSync(path.join(dir, '.gitattributes'), 'file-000.txt filter=x\n*.md filter=inc\n');
    fs.writeFileSync(path.join(dir, 'a.md'), 'a\n');
    execFileSync('git', ['add', '-A'], { cwd: dir });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-qm', 'i'], { cwd: dir });
    execFileSync('git', ['config', 'filter.x.clean', `env > ${marker}; cat`], { cwd: dir });
    const extra = path.join(dir, '.git', 'extra.cfg');
    fs.writeFileSync(extra, `[filter "inc"]\n\tclean = "env > ${marker}; cat"\n`);
    execFileSync('git', ['config', `includeIf.gitdir:${fs.realpathSync(dir)}/.git.path`, extra], { cwd: dir });
    // Same content, new mtimes: git must read both files again, through their filters.
    for (const f of ['file-000.txt', 'a.md']) fs.utimesSync(path.join(dir, f), 1_000_000, 1_000_000);
    const git = new GitStatusCache(dir, { turnWaitMs: LONG_WAIT });
    git.refresh();
    await git.beforeTurn();
    expect(git.text()).toContain('## main');
    expect(fs.existsSync(marker)).toBe(false);
    git.close();
    // The synchronous run (a prompt built without a session) is the same.
    for (const f of ['file-000.txt', 'a.md']) fs.utimesSync(path.join(dir, f), 1_000_100, 1_000_100);
    expect(buildSystemPrompt({ cwd: dir })).toContain('Git status:\n## main');
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('never starts a git the repository ships, even with a relative folder on PATH', async () => {
    const dir = repo(1);
    const marker = path.join(dir, 'PWNED');
    fs.mkdirSync(path.join(dir, 'node_modules/.bin'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'node_modules/.bin/git'), `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
    const saved = process.env.PATH;
    process.env.PATH = `node_modules/.bin${path.delimiter}${saved}`;
    try {
      const git = new GitStatusCache(dir, { turnWaitMs: LONG_WAIT });
      git.refresh();
      await git.beforeTurn();
      expect(git.text()).toContain('## No commits yet on main');
      git.close();
      expect(buildSystemPrompt({ cwd: dir })).toContain('Git status:');
    } finally {
      process.env.PATH = saved;
    }
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('shows the status of a worktree whose repository is elsewhere (the sandbox binds both)', async () => {
    const main = repo(1);
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'i'], { cwd: main });
    const other = tempDir('keen-wt-');
    const wt = path.join(other, 'wt');
    execFileSync('git', ['worktree', 'add', '-q', '-b', 'side', wt], { cwd: main });
    fs.writeFileSync(path.join(wt, 'new.txt'), 'x\n');
    const git = new GitStatusCache(path.join(wt), { turnWaitMs: LONG_WAIT });
    git.refresh();
    await git.beforeTurn();
    expect(git.text()).toContain('## side');
    expect(git.text()).toContain('?? new.txt');
    git.close();
  });
});
