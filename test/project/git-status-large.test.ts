/**
 * git status in a large repository arrives in time or is not started: past an index size it runs
 * without untracked files and says so; a run that times out turns untracked files off for the
 * session, and a second stops git status for it. Real git for the first; the time cap against a
 * stand-in that never ends (no test waits on a clock to pass or fail).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitStatusCache, indexBytes, readGitStatus, formatGitStatus } from '../../src/project/git-status.js';
import { tempDir } from '../kit/temp-dir.js';

describe('git status in a large repository', () => {
  it('past the index size it leaves untracked files out and says so', async () => {
    const dir = tempDir('keen-gitbig-');
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: dir });
    git('init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(dir, 'tracked.txt'), 'one\n');
    git('add', 'tracked.txt');
    git('commit', '-qm', 'init');
    fs.writeFileSync(path.join(dir, 'tracked.txt'), 'two\n');
    fs.writeFileSync(path.join(dir, 'new.txt'), 'untracked\n');
    expect(indexBytes(dir)).toBeGreaterThan(0);

    const small = formatGitStatus(await readGitStatus(dir).done);
    expect(small).toContain('?? new.txt');
    expect(small).not.toContain('untracked files not listed');

    const large = formatGitStatus(await readGitStatus(dir, { largeIndexBytes: 1 }).done)!;
    expect(large).toContain(' M tracked.txt');
    expect(large).not.toContain('new.txt');
    expect(large.split('\n').at(-1)).toBe('… untracked files not listed (a large repository)');
  });

  it('a timed-out run turns untracked files off; a second stops git status for the session', async () => {
    const dir = tempDir('keen-gitslow-');
    const counter = path.join(dir, 'runs');
    // A stand-in git that records its run first thing and never ends.
    const HANGS = { file: 'sh', args: ['-c', 'printf x >> "$0"; exec sleep 600', counter] };
    const runs = () => (fs.existsSync(counter) ? fs.readFileSync(counter, 'utf8').length : 0);
    const git = new GitStatusCache(dir, { command: HANGS, timeoutMs: 500, turnWaitMs: 60_000 });
    await git.beforeTurn();
    expect(git.text()).toMatch(/^… git status did not finish within 0\.5 s/);
    await git.beforeTurn();
    expect(git.text()).toBe('… git status is not run: it did not finish within 0.5 s here, even without untracked files');
    await git.beforeTurn();
    await git.beforeTurn();
    expect(runs()).toBe(2);
    git.close();
  });
});
