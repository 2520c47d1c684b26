/**
 * The session open reads and validates each config file once (`loadConfig`) and hands the result
 * to the permission policy, the bash options and the MCP sources. What a user sees must not
 * change: a malformed file is one line naming it, and an untrusted folder's config grants nothing.
 * Opened with `inspect` (no credentials, no model, nothing written).
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openSession } from '../../src/agent/open-session.js';
import { decide } from '../../src/tools/permissions/decide.js';
import { tempDir } from '../kit/temp-dir.js';

afterEach(() => {
  vi.restoreAllMocks();
});

function folder(projectConfig: string | object | undefined, userConfig?: object) {
  const root = tempDir('keen-config-once-');
  const cwd = path.join(root, 'project');
  const home = path.join(root, 'home');
  fs.mkdirSync(path.join(cwd, '.keen'), { recursive: true });
  fs.mkdirSync(home);
  if (projectConfig !== undefined) {
    fs.writeFileSync(path.join(cwd, '.keen', 'config.json'), typeof projectConfig === 'string' ? projectConfig : JSON.stringify(projectConfig));
  }
  if (userConfig) fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify(userConfig));
  return { cwd: fs.realpathSync(cwd), home };
}

const open = (at: { cwd: string; home: string }, flags: Record<string, unknown> = {}) =>
  openSession({ cwd: at.cwd, env: { KEEN_HOME: at.home, PATH: process.env.PATH }, flags: { provider: 'anthropic', ...flags }, interactive: false, inspect: true });

const bash = (cwd: string, command: string) => ({ tool: 'bash', summary: `bash: ${command}`, access: 'exec' as const, command, paths: [cwd] });

describe('one config load per session open', () => {
  it('a project config that is not JSON: one line naming the file', async () => {
    const at = folder('{"permissions": {"allow": [');
    const err = await open(at).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(new RegExp(`^invalid JSON in config ${path.join(at.cwd, '.keen', 'config.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
    expect(err?.message).not.toContain('\n');
  });

  it('a bad permission rule in the user config: one line naming the file and the field', async () => {
    const at = folder(undefined, { permissions: { allow: ['bash('] } });
    await expect(open(at)).rejects.toThrow(new RegExp(`^invalid config ${path.join(at.home, 'config.json')}: field permissions\\.allow\\[0\\]: `));
  });

  it('an untrusted folder: its permission rules grant nothing (and are named); trusted, they count', async () => {
    const project = { permissions: { allow: ['bash(rm -rf *)'] } };
    const at = folder(project, { permissions: { allow: ['bash(npm test)'] } });

    const untrusted = await open(at);
    try {
      expect(decide(bash(at.cwd, 'npm test'), untrusted.policy).verdict).toBe('allow');
      expect(decide(bash(at.cwd, 'rm -rf build'), untrusted.policy).verdict).not.toBe('allow');
      expect(untrusted.projectTrusted).toBe(false);
      expect(untrusted.warnings.join('\n')).toContain('permissions.allow');
    } finally {
      await untrusted.close();
    }

    const trusted = await open(at, { trust: true });
    try {
      expect(trusted.projectTrusted).toBe(true);
      expect(decide(bash(at.cwd, 'rm -rf build'), trusted.policy).verdict).toBe('allow');
    } finally {
      await trusted.close();
    }
  });

  it('reads each config file once on the way to the first request', async () => {
    const at = folder({ model: 'claude-sonnet-4-5' }, { permissions: { allow: ['bash(npm test)'] } });
    const reads = vi.spyOn(fs, 'readFileSync');
    // Keen imports readFileSync by name: the spy reaches that binding only once synced.
    syncBuiltinESMExports();
    let files: unknown[];
    try {
      const session = await open(at);
      await session.close();
    } finally {
      files = reads.mock.calls.map(([p]) => p);
      reads.mockRestore();
      syncBuiltinESMExports();
    }
    const of = (file: string) => files.filter((p) => p === file).length;
    expect(of(path.join(at.home, 'config.json'))).toBe(1);
    expect(of(path.join(at.cwd, '.keen', 'config.json'))).toBe(1);
  });
});
