/**
 * The config listing Keen neutralises git from is whole or a refusal: an include of something
 * other than a plain file (here one level down, past the first look at the repository's own
 * files) is refused after the listing, and a plain include chain is listed in full. Real git.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv } from '../../src/security/child-env.js';
import { configListing, configListingSync } from '../../src/tools/git/safe-git.js';
import { tempDir } from '../kit/temp-dir.js';

function repo(): string {
  const dir = path.join(tempDir('keen-gitlist-'), 'repo');
  fs.mkdirSync(dir);
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
  return dir;
}

describe('the git config listing', () => {
  it('lists a chain of plain includes in full', async () => {
    const dir = repo();
    fs.writeFileSync(path.join(dir, '.git/one.cfg'), '[include]\n\tpath = two.cfg\n');
    fs.writeFileSync(path.join(dir, '.git/two.cfg'), '[filter "x"]\n\tclean = evil\n');
    execFileSync('git', ['config', 'include.path', 'one.cfg'], { cwd: dir });
    const listing = await configListing(dir, childEnv(process.env));
    expect('entries' in listing && listing.entries.some((e) => e.key === 'filter.x.clean' && e.value === 'evil')).toBe(true);
  });

  it('refuses an include, one level down, of a device', async () => {
    const dir = repo();
    fs.writeFileSync(path.join(dir, '.git/one.cfg'), '[filter "x"]\n\tclean = evil\n[include]\n\tpath = /dev/null\n');
    execFileSync('git', ['config', 'include.path', 'one.cfg'], { cwd: dir });
    for (const listing of [await configListing(dir, childEnv(process.env)), configListingSync(dir, childEnv(process.env))]) {
      expect(listing).toEqual({ problem: 'an include names /dev/null, which is not a plain file' });
    }
  });
});

describe('the listing, judged as git reads it', () => {
  it('from a subfolder too: git names the repository files from its top', async () => {
    const dir = repo();
    fs.mkdirSync(path.join(dir, 'sub'));
    fs.writeFileSync(path.join(dir, '.git/inc1'), '[include]\n\tpath = nul\n');
    fs.symlinkSync('/dev/null', path.join(dir, '.git/nul'));
    execFileSync('git', ['config', 'include.path', 'inc1'], { cwd: dir });
    for (const cwd of [dir, path.join(dir, 'sub')]) {
      const listing = await configListing(cwd, childEnv(process.env));
      expect({ cwd, listing }).toEqual({ cwd, listing: { problem: `an include names ${path.join(dir, '.git/nul')}, which is not a plain file` } });
    }
  });

  it('an include through a file is one git skips, not a refusal; one of /proc is refused', async () => {
    const dir = repo();
    execFileSync('git', ['config', 'include.path', '/etc/passwd/x'], { cwd: dir });
    execFileSync('git', ['config', 'filter.x.clean', 'evil'], { cwd: dir });
    const listing = configListingSync(dir, childEnv(process.env));
    expect('entries' in listing && listing.entries.some((e) => e.key === 'filter.x.clean')).toBe(true);
    execFileSync('git', ['config', '--add', 'include.path', '/proc/self/environ'], { cwd: dir });
    expect(await configListing(dir, childEnv(process.env))).toEqual({ problem: 'an include names /proc/self/environ, a file the kernel makes up as it is read' });
  });
});
