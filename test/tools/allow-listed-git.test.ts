/**
 * Which bash commands get the neutralising git settings: those an allow rule let through, not
 * those approved at a prompt or run under --yolo (their git runs as the user configured it).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allowListedGitEnv } from '../../src/tools/git/allow-listed.js';
import { createHeadlessGate } from '../../src/tools/permissions/index.js';
import type { PermissionGate, ToolContext } from '../../src/tools/types.js';
import { tempDir } from '../kit/temp-dir.js';
import { call } from './helpers.js';

function repo(): string {
  const dir = tempDir('keen-allowgit-');
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
  execFileSync('git', ['config', 'filter.x.clean', 'touch pwned; cat'], { cwd: dir });
  fs.writeFileSync(path.join(dir, '.gitmodules'), '[submodule "lib"]\n\tpath = lib\n\turl = ./lib\n\tignore = none\n');
  return dir;
}

const ctx = (cwd: string, permissions: PermissionGate): ToolContext => ({ cwd, signal: new AbortController().signal, permissions });

/** The GIT_CONFIG_* pairs of `env` as a map. */
function pairs(env: NodeJS.ProcessEnv): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < Number(env.GIT_CONFIG_COUNT ?? 0); i++) out.set(env[`GIT_CONFIG_KEY_${i}`]!, env[`GIT_CONFIG_VALUE_${i}`]!);
  return out;
}

describe('git settings for a bash command', () => {
  it('a command an allow rule let through: the repository’s filter off, hooks off, submodules not entered', async () => {
    const cwd = repo();
    const gate = createHeadlessGate({ cwd, home: os.homedir(), allow: ['bash(git status*)'] });
    const set = pairs(await allowListedGitEnv('git status --short', ctx(cwd, gate), { PATH: process.env.PATH, HOME: process.env.HOME }));
    expect(set.get('filter.x.clean')).toBe('');
    expect(set.get('filter.x.required')).toBe('false');
    expect(set.get('core.hooksPath')).toBe('/dev/null');
    expect(set.get('core.fsmonitor')).toBe('false');
    expect(set.get('submodule.lib.ignore')).toBe('dirty');
  });

  it('pairs the environment already holds stay first', async () => {
    const cwd = repo();
    const gate = createHeadlessGate({ cwd, home: os.homedir(), allow: ['bash(git status*)'] });
    const env = await allowListedGitEnv('git status', ctx(cwd, gate), { PATH: process.env.PATH, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'user.name', GIT_CONFIG_VALUE_0: 'me' });
    expect(env.GIT_CONFIG_KEY_0).toBeUndefined();
    expect(env.GIT_CONFIG_KEY_1).toBe('core.fsmonitor');
  });

  it('a command run under --yolo, or one no rule allows, is left as configured', async () => {
    const cwd = repo();
    expect(await allowListedGitEnv('git commit -m x', ctx(cwd, createHeadlessGate({ cwd, home: os.homedir(), yolo: true })), {})).toEqual({});
    expect(await allowListedGitEnv('git commit -m x', ctx(cwd, createHeadlessGate({ cwd, home: os.homedir(), allow: ['bash(git status*)'] })), {})).toEqual({});
  });
});

describe('a repository whose git config cannot be read in full', () => {
  it('a command an allow rule would let through is refused, and its git runs nothing', async () => {
    const cwd = repo();
    fs.writeFileSync(path.join(cwd, '.gitattributes'), '* filter=x\n');
    fs.writeFileSync(path.join(cwd, 'f.txt'), 'x\n');
    // Past the listing's limit: the filter below the padding would go unseen.
    fs.appendFileSync(path.join(cwd, '.git/config'), `[padding]\n${'\tx = y\n'.repeat(200_000)}`);
    const permissions = createHeadlessGate({ cwd, home: os.homedir(), allow: ['bash(git add*)'] });
    const msg = await call(cwd, 'bash', { command: 'git add f.txt' }, { permissions });
    expect(fs.existsSync(path.join(cwd, 'pwned'))).toBe(false);
    expect(msg.is_error).toBe(true);
    expect(msg.content).toMatch(/not run on an allow rule: the repository's git config could not be read in full/);
    // Refused before the sandbox made its mount points: nothing is left in the workspace.
    expect(fs.readdirSync(cwd).sort()).toEqual(['.git', '.gitattributes', '.gitmodules', 'f.txt']);
  });
});
