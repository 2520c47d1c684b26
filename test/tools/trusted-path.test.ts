/**
 * Where Keen looks for git and bubblewrap: never in a folder the workspace can fill (a PATH entry
 * inside it, directly or through a link), but a system program folder only root can write stays
 * usable when the workspace holds it (Keen started in `/`), so bash there still runs sandboxed.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { safeGit, safeGitSync, trustedPath } from '../../src/tools/git/safe-git.js';
import { createDefaultRegistry } from '../../src/tools/index.js';
import { itSandbox } from '../kit/sandbox.js';
import { tempDir } from '../kit/temp-dir.js';
import { call } from './helpers.js';

const rootOwnedUsrBin = (() => {
  const st = fs.statSync(fs.realpathSync('/usr/bin'));
  return st.uid === 0 && (st.mode & 0o022) === 0;
})();

describe('the trusted PATH', () => {
  it('drops an entry that leads into the workspace through a link', () => {
    const base = tempDir('keen-trusted-path-');
    const ws = path.join(base, 'ws');
    fs.mkdirSync(path.join(ws, 'bin'), { recursive: true });
    fs.symlinkSync(path.join(ws, 'bin'), path.join(base, 'tools'));
    // A link to a folder the workspace may create later leads in just the same.
    fs.symlinkSync(ws, path.join(base, 'later'));
    const PATH = [path.join(base, 'tools'), path.join(base, 'later', 'not-yet'), '/usr/bin'].join(path.delimiter);
    expect(trustedPath(ws, { PATH })).toBe('/usr/bin');
    // A kept entry is given as its real path: the link on the way cannot be re-pointed later.
    fs.symlinkSync(fs.realpathSync('/usr/bin'), path.join(base, 'sys'));
    expect(trustedPath(ws, { PATH: path.join(base, 'sys') })).toBe(fs.realpathSync('/usr/bin'));
  });

  it.skipIf(!rootOwnedUsrBin)('keeps the system program folders when the workspace is /, and nothing else inside it', () => {
    const own = tempDir('keen-trusted-path-');
    const PATH = [path.join(own, 'bin'), '/usr/bin', 'relative/bin'].join(path.delimiter);
    expect(trustedPath('/', { PATH })).toBe('/usr/bin');
  });

  itSandbox('bash started in / still runs in the sandbox', async () => {
    const marker = path.join(os.tmpdir(), `keen-trusted-path-marker-${process.pid}`);
    fs.writeFileSync(marker, 'host\n');
    try {
      const registry = createDefaultRegistry({ sandbox: { mode: 'workspace-write', network: false } });
      const msg = await call('/', 'bash', { command: `cat ${marker} || echo private-tmp`, timeout_seconds: 20 }, { registry });
      expect(msg.content).toContain('private-tmp');
      expect(msg.content).not.toContain('host');
      expect(msg.content).not.toMatch(/no sandbox/);
    } finally {
      fs.rmSync(marker, { force: true });
    }
  });
});

describe("Keen's own git with no git on the trusted PATH", () => {
  it('is refused, never looked up by its bare name (which finds the repository’s ./git)', async () => {
    const ws = tempDir('keen-trusted-path-');
    execFileSync('git', ['init', '-q'], { cwd: ws });
    fs.writeFileSync(path.join(ws, 'git'), `#!/bin/sh\ntouch ${JSON.stringify(path.join(ws, 'planted-ran'))}\n`, { mode: 0o755 });
    for (const PATH of [ws, '', 'relative']) {
      const env = { PATH, HOME: os.homedir() };
      expect(await safeGit(ws, ['status'], env)).toEqual({ refused: 'no git on a PATH folder the repository cannot fill' });
      expect(safeGitSync(ws, ['status'], env)).toEqual({ refused: 'no git on a PATH folder the repository cannot fill' });
    }
    expect(fs.existsSync(path.join(ws, 'planted-ran'))).toBe(false);
  });
});
