import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { denyExcludes, hiddenByRules } from '../../src/tools/path-filter.js';
import { buildPolicy, createHeadlessGate } from '../../src/tools/permissions/index.js';
import { call } from './helpers.js';
import { tempProject } from '../kit/temp-dir.js';

describe('search results and the path rules', () => {
  it('an ask rule hides what the call did not ask about; a credential folder in the workspace is left out', async () => {
    const dir = tempProject({ 'secrets/k.txt': 'needle-ask\n', '.ssh/id_ed25519': 'needle-key\n', '.ssh/config': 'needle-config\n', 'a.txt': 'needle\n' });
    const gate = createHeadlessGate({ cwd: dir, home: dir, user: { ask: ['read_file(secrets/**)'], allow: ['read_file(~/.ssh/config)'] } });
    const msg = await call(dir, 'grep', { pattern: 'needle' }, { permissions: gate });
    const lines = msg.content.split('\n');
    expect(lines.slice(0, -1).sort()).toEqual(['.ssh/config:1:needle-config', 'a.txt:1:needle']);
    expect(lines.at(-1)).toBe('[2 files left out by the permission rules (deny and ask rules, credential folders)]');
  });

  it('a credential folder hides results whether it lies below the search root or holds its lexical path', async () => {
    // dir is the home: `.aws` and `.ssh` are credential folders. `reached` links to the home (a
    // search there holds `.aws` by its real path only), and `.ssh/out` links out of `.ssh` (a
    // search there holds nothing of the store by its real path, all of it by its lexical one).
    const dir = tempProject({ '.aws/config': 'needle-aws\n', 'plain.txt': 'needle-plain\n', 'outside/o.txt': 'needle-out\n', '.ssh/k': 'x\n' });
    fs.symlinkSync(dir, path.join(dir, 'reached'));
    fs.symlinkSync(path.join(dir, 'outside'), path.join(dir, '.ssh', 'out'));
    const gate = createHeadlessGate({ cwd: dir, home: dir, yolo: true, user: {} });
    const viaLink = (await call(dir, 'grep', { pattern: 'needle', path: 'reached' }, { permissions: gate })).content.split('\n');
    viaLink.splice(0, 2, ...viaLink.slice(0, 2).sort());
    expect(viaLink).toEqual([
      'reached/outside/o.txt:1:needle-out',
      'reached/plain.txt:1:needle-plain',
      '[1 file left out by the permission rules (deny and ask rules, credential folders)]',
    ]);
    const inStore = (await call(dir, 'grep', { pattern: 'needle', path: '.ssh/out' }, { permissions: gate })).content.split('\n');
    expect(inStore).toEqual(['No matches for needle in .ssh/out.', '[1 file left out by the permission rules (deny and ask rules, credential folders)]']);
  });

  it('a result counts by its lexical and its real path', () => {
    const policy = buildPolicy({ cwd: '/w', home: '/h', user: { deny: ['read_file(.env)', 'grep(logs/**)'], ask: ['read_file(private/**)'] } });
    const scope = { policy, tool: 'grep', roots: ['/w'], searchRoot: '/w' };
    expect(hiddenByRules('/w/sub/.env', scope)).toBe(true);
    expect(hiddenByRules('/w/logs/x', scope)).toBe(true);
    expect(hiddenByRules('/w/logs/x', { ...scope, tool: 'glob' })).toBe(false);
    expect(hiddenByRules('/w/private/x', scope)).toBe(true);
    // The call asked about private/ itself (and was approved): its results are what was approved.
    expect(hiddenByRules('/w/private/x', { ...scope, searchRoot: '/w/private' })).toBe(false);
    expect(hiddenByRules('/w/src/a.ts', scope)).toBe(false);
    expect(hiddenByRules('/h/.aws/credentials', { ...scope, roots: ['/h'], searchRoot: '/h' })).toBe(true);
    expect(hiddenByRules('/h/.aws/credentials', { ...scope, roots: ['/h'], searchRoot: '/h/.aws' })).toBe(false);
  });

  it('ripgrep is told to skip denied files it can name exactly', () => {
    const policy = buildPolicy({
      cwd: '/w',
      home: '/h',
      user: { deny: ['read_file(.env)', 'read_file(secrets/**)', 'read_file(/w/sub/k/**)', 'read_file(/etc/**)', 'edit_file(x/**)'] },
    });
    expect(denyExcludes(policy, 'grep', ['/w'], '/w')).toEqual(['--glob', '!.env', '--glob', '!/secrets/**', '--glob', '!/sub/k/**']);
    expect(denyExcludes(policy, 'glob', ['/w'], path.join('/w', 'sub'))).toEqual(['--glob', '!.env', '--glob', '!/k/**']);
  });
});
