import { link, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildPolicy, createHeadlessGate, createSessionGate, decide, nextMode, parseMode } from '../../src/tools/permissions/index.js';
import type { PermissionRequest } from '../../src/tools/types.js';
import { call } from './helpers.js';
import { tempProject } from '../kit/temp-dir.js';

const CWD = '/ws';
const req = (tool: string, extra: Partial<PermissionRequest> = {}): PermissionRequest => ({ tool, summary: tool, cwd: CWD, ...extra });
const file = (tool: string, rel: string) => req(tool, { paths: [path.join(CWD, rel)] });
const bash = (command: string) => req('bash', { command });
const verdict = (r: PermissionRequest, input: Parameters<typeof buildPolicy>[0]) => decide(r, buildPolicy({ cwd: '/', home: '/home/u', ...input })).verdict;

describe("a PreToolUse hook's answer", () => {
  const allow = { verdict: 'allow' as const };
  const ask = { verdict: 'ask' as const, reason: 'look first' };
  it('allow skips the question but not a deny rule, an ask rule or a protected path', () => {
    expect(verdict(bash('make deploy'), {})).toBe('ask');
    expect(verdict(req('bash', { command: 'make deploy', hook: allow }), {})).toBe('allow');
    expect(verdict(req('bash', { command: 'make deploy', hook: allow }), { user: { deny: ['bash(make:*)'] } })).toBe('deny');
    expect(verdict(req('bash', { command: 'make deploy', hook: allow }), { user: { ask: ['bash(make:*)'] } })).toBe('ask');
    expect(verdict(req('write_file', { paths: [path.join(CWD, 'src/a.ts')], access: 'write', hook: allow }), {})).toBe('allow');
    expect(verdict(req('write_file', { paths: [path.join(CWD, '.git/hooks/pre-commit')], access: 'write', hook: allow }), {})).toBe('ask');
  });
  it('ask asks where the rules or --yolo would allow; a deny rule still denies', () => {
    expect(verdict(req('bash', { command: 'npm test', hook: ask }), { yolo: true })).toBe('ask');
    expect(verdict(req('bash', { command: 'npm test', hook: ask }), { user: { allow: ['bash(npm test)'] } })).toBe('ask');
    expect(verdict(req('bash', { command: 'npm test', hook: ask }), { user: { deny: ['bash(npm:*)'] } })).toBe('deny');
  });
});

describe('permission rules: deny beats ask beats allow, for every kind of tool', () => {
  const cases: [string, PermissionRequest, string][] = [
    ['bash', bash('npm test'), 'bash(npm test)'],
    ['bash prefix', bash('git status --short'), 'bash(git status:*)'],
    ['file path', file('edit_file', 'src/a.ts'), 'edit_file(src/**)'],
    ['read path', file('read_file', '.env'), 'read_file(.env)'],
    ['mcp server', req('mcp__github__create_issue'), 'mcp__github'],
    ['mcp tool', req('mcp__github__create_issue'), 'mcp__github__create_issue'],
    ['web_fetch', req('web_fetch', { domain: 'docs.python.org' }), 'web_fetch(domain:python.org)'],
  ];
  for (const [name, request, rule] of cases) {
    it(name, () => {
      expect(verdict(request, { user: { allow: [rule] } })).toBe('allow');
      expect(verdict(request, { user: { allow: [rule], ask: [rule] } })).toBe('ask');
      expect(verdict(request, { user: { allow: [rule], ask: [rule], deny: [rule] } })).toBe('deny');
      // --yolo runs everything but a deny rule.
      expect(verdict(request, { yolo: true, user: { deny: [rule] } })).toBe('deny');
      expect(verdict(request, { yolo: true })).toBe('allow');
    });
  }

  it('prefix rules: `:*` needs a word boundary, allow never covers compound commands, deny covers any part', () => {
    expect(verdict(bash('git statusx'), { user: { allow: ['bash(git status:*)'] } })).toBe('ask');
    expect(verdict(bash('git statusx'), { user: { allow: ['bash(git status*)'] } })).toBe('allow');
    expect(verdict(bash('git status && rm -rf /'), { user: { allow: ['bash(git status:*)'] } })).toBe('ask');
    expect(verdict(bash('ls; rm -rf build'), { yolo: true, user: { deny: ['bash(rm:*)'] } })).toBe('deny');
    expect(verdict(bash('echo $(curl x)'), { yolo: true, disallowedTools: ['bash(curl:*)'] })).toBe('deny');
  });

  it('path rules: tempProject-relative, name-anywhere, home and absolute globs; read_file covers grep and glob', () => {
    expect(verdict(file('read_file', 'config/.env'), { yolo: true, user: { deny: ['read_file(.env)'] } })).toBe('deny');
    expect(verdict(file('grep', 'config/.env'), { yolo: true, user: { deny: ['read_file(.env)'] } })).toBe('deny');
    expect(verdict(file('write_file', 'src/a.ts'), { user: { allow: ['edit_file(src/**)'] } })).toBe('allow');
    expect(verdict(file('write_file', 'lib/a.ts'), { user: { allow: ['edit_file(src/**)'] } })).toBe('ask');
    expect(verdict(req('read_file', { paths: ['/home/u/.ssh/id_x'] }), { user: { allow: ['read_file(~/.ssh/**)'] } })).toBe('allow');
    expect(verdict(req('read_file', { paths: ['/etc/hosts'] }), {})).toBe('ask');
    expect(verdict(req('read_file', { paths: ['/etc/hosts'] }), { allowedTools: ['read_file(/etc/**)'] })).toBe('allow');
  });

  it('mcp__server covers only that server; globs over tool names work', () => {
    expect(verdict(req('mcp__githubx__t'), { user: { allow: ['mcp__github'] } })).toBe('ask');
    expect(verdict(req('mcp__github__t'), { user: { allow: ['mcp__github__*'] } })).toBe('allow');
  });

  it('project allow rules count only in a trusted project; project denies always count', () => {
    const project = { allow: ['bash'], deny: ['edit_file'] };
    expect(verdict(bash('ls'), { project })).toBe('ask');
    expect(verdict(bash('ls'), { project, projectTrusted: true })).toBe('allow');
    expect(verdict(file('edit_file', 'a'), { project, yolo: true })).toBe('deny');
  });
});

describe('permission modes', () => {
  it('default: reads inside run, edits and bash ask; acceptEdits: edits run, bash asks; plan decides as default', () => {
    expect(verdict(file('read_file', 'a'), {})).toBe('allow');
    expect(verdict(file('edit_file', 'a'), {})).toBe('ask');
    expect(verdict(file('edit_file', 'a'), { mode: 'acceptEdits' })).toBe('allow');
    expect(verdict(bash('ls'), { mode: 'acceptEdits' })).toBe('ask');
    // Plan mode's refusals are the plan-mode registry's (one plan mode, test/e2e/rule-names.test.ts).
    expect(verdict(file('edit_file', 'a'), { mode: 'plan' })).toBe('ask');
    expect(verdict(bash('ls'), { mode: 'plan' })).toBe('ask');
    expect(verdict(file('read_file', 'a'), { mode: 'plan' })).toBe('allow');
  });

  it('bypass keeps writes outside the workspace refused', () => {
    expect(verdict(req('write_file', { paths: ['/elsewhere/x'] }), { yolo: true })).toBe('deny');
    expect(verdict(req('write_file', { paths: ['/elsewhere/x'] }), { yolo: true, user: { allow: ['write_file'] } })).toBe('deny');
  });

  it('parses modes and cycles them', () => {
    expect(() => parseMode('yolo')).toThrow('unknown permission mode "yolo" (--permission-mode); choose one of default, acceptEdits, plan, bypassPermissions');
    expect(nextMode('default')).toBe('acceptEdits');
    expect(nextMode('bypassPermissions')).toBe('default');
  });
});

describe('protected paths', () => {
  for (const rel of [
    '.git/config',
    '.keen/config.json',
    '.claude/settings.json',
    '.agents/x',
    '.mcp.json',
    '.envrc',
    '.husky/pre-commit',
    '.vscode/tasks.json',
    '.idea/workspace.xml',
    'sub/.GIT/hooks/post-checkout',
  ]) {
    it(`${rel} asks whatever allow rules or --yolo say`, () => {
      expect(verdict(file('write_file', rel), { yolo: true, user: { allow: ['write_file', 'edit_file(**)'] }, allowedTools: ['write_file'] })).toBe('ask');
    });
  }

  it('a user rule naming the location unlocks it; a project rule never does', () => {
    const r = file('write_file', '.keen/commands/x.md');
    expect(verdict(r, { user: { allow: ['write_file(.keen/commands/**)'] } })).toBe('allow');
    expect(verdict(r, { allowedTools: ['write_file(.keen/commands/**)'] })).toBe('allow');
    expect(verdict(r, { project: { allow: ['write_file(.keen/commands/**)'] }, projectTrusted: true, yolo: true })).toBe('ask');
    expect(verdict(file('write_file', '.keen/config.json'), { user: { allow: ['write_file(.keen/commands/**)'] } })).toBe('ask');
  });

  it('headless: a protected write is denied with a line saying how to allow it, and the file is untouched', async () => {
    const dir = tempProject({ '.git/config': '[core]\n' });
    const msg = await call(dir, 'write_file', { path: '.git/config', content: '[core]\nfsmonitor = "touch pwned"\n' }, { permissions: createHeadlessGate({ yolo: true }) });
    expect(msg.is_error).toBe(true);
    expect(msg.content).toBe(
      `Permission denied: ${path.join(dir, '.git/config')} is protected (.git changes what Keen or git runs), so writing it always needs approval. Allow it explicitly in your own config, e.g. "write_file(.git/**)".`,
    );
    expect(await readFile(path.join(dir, '.git/config'), 'utf8')).toBe('[core]\n');
  });

  it('the REPL asks about it even in bypass mode, and "for this session" remembers that file only', async () => {
    const dir = tempProject();
    const asked: string[] = [];
    const gate = createSessionGate(async (r) => (asked.push(r.summary), 'session'), { yolo: true });
    expect((await call(dir, 'write_file', { path: '.envrc', content: 'x' }, { permissions: gate })).is_error).toBeUndefined();
    expect((await call(dir, 'write_file', { path: '.envrc', content: 'y' }, { permissions: gate })).is_error).toBeUndefined();
    expect(gate.sessionRules()).toEqual(['write_file(.envrc)']);
    expect(asked).toHaveLength(1);
  });
});

describe('real paths before rules', () => {
  it('a symlink inside the workspace pointing out is outside: reads ask (headless: denied)', async () => {
    const outside = tempProject({ 'secret.txt': 'top secret\n' });
    const dir = tempProject();
    await symlink(path.join(outside, 'secret.txt'), path.join(dir, 'innocent.txt'));
    const msg = await call(dir, 'read_file', { path: 'innocent.txt' }, { permissions: createHeadlessGate({}) });
    expect(msg.is_error).toBe(true);
    expect(msg.content).toContain(`Permission denied: ${path.join(outside, 'secret.txt')} is outside the workspace`);
    expect(msg.content).not.toContain('top secret');
    // glob and grep on a linked directory are judged the same way.
    await symlink(outside, path.join(dir, 'linked'));
    expect((await call(dir, 'grep', { pattern: 'secret', path: 'linked' }, { permissions: createHeadlessGate({}) })).content).toContain('Permission denied');
    expect((await call(dir, 'list_dir', { path: 'linked' }, { permissions: createHeadlessGate({}) })).content).toContain('Permission denied');
  });

  it('reads of ~/.ssh are refused even when the workspace is the home folder (a credential store)', async () => {
    const home = tempProject({ '.ssh/id_x': 'PRIVATE KEY\n', 'notes.txt': 'hi\n' });
    const gate = createHeadlessGate({ home, cwd: home });
    expect((await call(home, 'read_file', { path: path.join(home, '.ssh/id_x') }, { permissions: gate })).content).toMatch(
      /^Refusing read_file on .*\.ssh\/id_x: it is a credential store/,
    );
    expect((await call(home, 'read_file', { path: 'notes.txt' }, { permissions: gate })).is_error).toBeUndefined();
  });

  it('a credential store that appears later as a symlink into the workspace is refused from then on', async () => {
    const home = tempProject({ 'notes.txt': 'hi\n' });
    const ws = tempProject({ 'keys/credentials': '[default]\nsecret\n' });
    const gate = createHeadlessGate({ home, cwd: ws });
    expect((await call(ws, 'read_file', { path: 'keys/credentials' }, { permissions: gate })).content).toContain('secret');
    await symlink(path.join(ws, 'keys'), path.join(home, '.aws'));
    expect((await call(ws, 'read_file', { path: 'keys/credentials' }, { permissions: gate })).content).toMatch(/^Refusing read_file on .*credentials: it is a credential store/);
    expect((await call(ws, 'grep', { pattern: 'secret', path: 'keys' }, { permissions: gate })).content).toMatch(/^Refusing grep on /);
  });

  it('a write through a hard link to a file outside the workspace is refused', async () => {
    const outside = tempProject({ 'victim.txt': 'safe\n' });
    const dir = tempProject();
    await link(path.join(outside, 'victim.txt'), path.join(dir, 'hard.txt'));
    const yolo = createHeadlessGate({ yolo: true });
    const w = await call(dir, 'write_file', { path: 'hard.txt', content: 'owned\n' }, { permissions: yolo });
    expect(w.content).toContain('Refusing to write hard.txt: it has 2 hard links');
    const e = await call(dir, 'edit_file', { path: 'hard.txt', old_string: 'safe', new_string: 'owned' }, { permissions: yolo });
    expect(e.content).toContain('hard links');
    expect(await readFile(path.join(outside, 'victim.txt'), 'utf8')).toBe('safe\n');
  });

  it('--add-dir extends the workspace for reads and writes', async () => {
    const extra = tempProject({ 'lib.txt': 'shared\n' });
    const dir = tempProject();
    const gate = createHeadlessGate({ mode: 'acceptEdits', addDirs: [extra], cwd: dir });
    expect((await call(dir, 'read_file', { path: path.join(extra, 'lib.txt') }, { permissions: gate })).is_error).toBeUndefined();
    const w = await call(dir, 'write_file', { path: path.join(extra, 'new.txt'), content: 'n\n' }, { permissions: gate });
    expect(w.is_error).toBeUndefined();
    expect(await readFile(path.join(extra, 'new.txt'), 'utf8')).toBe('n\n');
    expect(() => buildPolicy({ addDirs: [path.join(dir, 'missing')] })).toThrow(`--add-dir: ${path.join(dir, 'missing')} does not exist`);
    await mkdir(path.join(dir, 'd'));
    await writeFile(path.join(dir, 'f'), '');
    expect(() => buildPolicy({ addDirs: [path.join(dir, 'f')] })).toThrow('is not a directory');
  });
});

describe('"allow for this session" after an ask rule asked', () => {
  const policy = (user: { allow?: string[]; ask?: string[] }) => buildPolicy({ cwd: '/', home: '/home/u', user });

  it('bash: the same command is not asked again; another command the ask rule matches still asks', async () => {
    const asked: string[] = [];
    const gate = createSessionGate(async (r) => (asked.push(r.command!), 'session'), policy({ allow: ['bash'], ask: ['bash(git push:*)'] }));
    expect(await gate.check(bash('git push origin main'))).toBe('allow');
    expect(await gate.check(bash('git push origin main'))).toBe('allow');
    expect(asked).toEqual(['git push origin main']);
    expect(await gate.check(bash('git push --force origin main'))).toBe('allow');
    expect(asked).toEqual(['git push origin main', 'git push --force origin main']);
    // Config allows still do not beat the ask rule: a fresh session asks again.
    expect(decide(bash('git push origin main'), policy({ allow: ['bash'], ask: ['bash(git push:*)'] })).verdict).toBe('ask');
  });

  it('a path rule: the answer covers what the prompt named ("allow read_file"), and nothing the prompt did not', async () => {
    const asked: string[] = [];
    const gate = createSessionGate(async (r) => (asked.push(r.paths![0]), 'session'), policy({ ask: ['read_file(secrets/**)', 'edit_file(secrets/**)'] }));
    expect(await gate.check(file('read_file', 'secrets/a.txt'))).toBe('allow');
    expect(await gate.check(file('read_file', 'secrets/a.txt'))).toBe('allow');
    expect(await gate.check(file('read_file', 'secrets/b.txt'))).toBe('allow');
    expect(asked).toEqual(['/ws/secrets/a.txt']);
    // A write is another question, asked by its own rule.
    expect(await gate.check(file('edit_file', 'secrets/a.txt'))).toBe('allow');
    expect(asked).toEqual(['/ws/secrets/a.txt', '/ws/secrets/a.txt']);
  });

  it('a call two ask rules match is settled for both by one answer', async () => {
    let asked = 0;
    const gate = createSessionGate(async () => (asked++, 'session'), policy({ ask: ['bash(git:*)', 'bash(git push:*)'] }));
    expect(await gate.check(bash('git push'))).toBe('allow');
    expect(await gate.check(bash('git push'))).toBe('allow');
    expect(asked).toBe(1);
  });

  it('"once" is not remembered: the ask rule asks again', async () => {
    let asked = 0;
    const gate = createSessionGate(async () => (asked++, 'once'), policy({ ask: ['bash(git push:*)'] }));
    await gate.check(bash('git push'));
    await gate.check(bash('git push'));
    expect(asked).toBe(2);
  });
});
