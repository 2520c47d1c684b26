/**
 * The place and owner checks of context files: the pure ownership decision, and the reads made on
 * the opened descriptor (a name swapped after the open does not change what is judged).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openedRealPath, ownershipProblem } from '../../src/project/file-trust.js';
import { readCapped } from '../../src/project/read-capped.js';
import { walkProject } from '../../src/project/repo-root.js';
import { tempDir } from '../kit/temp-dir.js';

const me = { uid: 1000, gid: 1000 };

describe('ownershipProblem', () => {
  it('own and root-owned files are fine; another owner, every-user-writable and foreign-group-writable are not', () => {
    expect(ownershipProblem({ uid: 1000, gid: 1000, mode: 0o100644 }, me)).toBeUndefined();
    expect(ownershipProblem({ uid: 0, gid: 0, mode: 0o100644 }, me)).toBeUndefined();
    // A user-private group under umask 002 is the account itself.
    expect(ownershipProblem({ uid: 1000, gid: 1000, mode: 0o100664 }, me)).toBeUndefined();
    expect(ownershipProblem({ uid: 65534, gid: 1000, mode: 0o100644 }, me)).toBe('owned by another user (uid 65534)');
    expect(ownershipProblem({ uid: 1000, gid: 1000, mode: 0o100666 }, me)).toBe('writable by every user');
    expect(ownershipProblem({ uid: 0, gid: 0, mode: 0o041777 }, me)).toBe('writable by every user');
    expect(ownershipProblem({ uid: 1000, gid: 50, mode: 0o100664 }, me)).toBe('writable by group 50');
  });
  it('without uids (Windows) nothing is judged', () => {
    expect(ownershipProblem({ uid: 65534, gid: 0, mode: 0o100666 }, null)).toBeUndefined();
  });
});

describe('readCapped', () => {
  it('reads a symlink whose target stays inside `within`, skips one that leads out, and names it once', () => {
    const root = tempDir('keen-trust-');
    const out = tempDir('keen-trust-');
    fs.writeFileSync(path.join(root, 'AGENTS.md'), 'inside');
    fs.writeFileSync(path.join(out, 'secret'), 'SECRET');
    fs.symlinkSync('AGENTS.md', path.join(root, 'CLAUDE.md'));
    fs.symlinkSync(path.join(out, 'secret'), path.join(root, 'KEEN.md'));
    const warnings: string[] = [];
    expect(readCapped(path.join(root, 'CLAUDE.md'), 100, { within: root, warnings })?.content).toBe('inside');
    expect(readCapped(path.join(root, 'KEEN.md'), 100, { within: root, warnings, what: 'instructions' })).toBeUndefined();
    expect(readCapped(path.join(root, 'KEEN.md'), 100, { within: root, warnings, what: 'instructions' })).toBeUndefined();
    expect(warnings).toEqual([`skipped instructions ${path.join(root, 'KEEN.md')}: it leads outside ${root} (to ${path.join(out, 'secret')})`]);
  });
  it('without `within` a symlinked leaf is not followed at all', () => {
    const root = tempDir('keen-trust-');
    fs.writeFileSync(path.join(root, 'real.md'), 'x');
    fs.symlinkSync('real.md', path.join(root, 'memory.md'));
    const warnings: string[] = [];
    expect(readCapped(path.join(root, 'memory.md'), 100, { warnings })).toBeUndefined();
    expect(warnings).toEqual([`skipped ${path.join(root, 'memory.md')}: it is a symlink`]);
  });
  it('a FIFO planted as AGENTS.md does not hang the read', () => {
    const root = tempDir('keen-trust-');
    const fifo = path.join(root, 'AGENTS.md');
    if (spawnSync('mkfifo', [fifo]).status !== 0) return;
    expect(readCapped(fifo, 100, { within: root })).toBeUndefined();
  });
  it('caps at `cap` bytes and says so', () => {
    const root = tempDir('keen-trust-');
    fs.writeFileSync(path.join(root, 'a.md'), 'abcdef');
    expect(readCapped(path.join(root, 'a.md'), 4, { within: root })).toEqual({ path: path.join(root, 'a.md'), content: 'abcd', truncated: true });
    expect(readCapped(path.join(root, 'a.md'), 6, { within: root })?.truncated).toBe(false);
  });
});

describe('openedRealPath', () => {
  it('names the opened file even after its name is swapped for a symlink out', () => {
    const root = tempDir('keen-trust-');
    const out = tempDir('keen-trust-');
    const file = path.join(root, 'AGENTS.md');
    fs.writeFileSync(file, 'inside');
    fs.writeFileSync(path.join(out, 'secret'), 'SECRET');
    const fd = fs.openSync(file, 'r');
    try {
      const st = fs.fstatSync(fd);
      fs.renameSync(file, path.join(root, 'moved.md'));
      fs.symlinkSync(path.join(out, 'secret'), file);
      const real = openedRealPath(fd, file, st);
      // Linux names the descriptor; elsewhere the swapped name no longer matches the inode.
      expect(real === path.join(root, 'moved.md') || real === undefined).toBe(true);
    } finally {
      fs.closeSync(fd);
    }
  });
});

describe('walkProject', () => {
  it('stops below a folder writable by every user, and ignores a .git of another account', () => {
    const base = tempDir('keen-trust-');
    const shared = path.join(base, 'shared');
    fs.mkdirSync(path.join(shared, '.git'), { recursive: true });
    fs.chmodSync(shared, 0o1777);
    const mine = path.join(shared, 'mine');
    fs.mkdirSync(path.join(mine, 'sub'), { recursive: true });
    expect(walkProject(path.join(mine, 'sub'))).toEqual({ dirs: [path.join(mine, 'sub'), mine], root: path.join(mine, 'sub'), repo: false });
    expect(walkProject(shared)).toMatchObject({ dirs: [], root: shared, repo: false, cwdProblem: 'writable by every user' });
    if (process.getuid?.() !== 0) return;
    fs.chmodSync(shared, 0o755);
    fs.chownSync(path.join(shared, '.git'), 65534, 65534);
    expect(walkProject(mine)).toMatchObject({ repo: false, root: mine });
    fs.chownSync(path.join(shared, '.git'), 0, 0);
    expect(walkProject(mine)).toMatchObject({ repo: true, root: shared });
  });
});
