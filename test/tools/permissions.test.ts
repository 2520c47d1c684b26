import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KeenError } from '../../src/errors.js';
import { createHeadlessGate, createSessionGate, parseRule, type SessionAnswer } from '../../src/tools/permissions/index.js';
import type { PermissionRequest } from '../../src/tools/types.js';
import { withoutNoSandboxNote } from '../kit/sandbox.js';
import { call } from './helpers.js';
import { tempProject } from '../kit/temp-dir.js';

const bash = (command: string): PermissionRequest => ({ tool: 'bash', summary: `bash: ${command}`, detail: command });
const write: PermissionRequest = { tool: 'write_file', summary: 'write a.txt (1 line, new file)' };

describe('headless gate', () => {
  it('denies mutating calls by default and the denial names --yolo and permissions.allow', async () => {
    const dir = tempProject();
    const gate = createHeadlessGate({ yolo: false, allow: [] });
    const msg = await call(dir, 'write_file', { path: 'a.txt', content: 'x' }, { permissions: gate });
    expect(msg).toMatchObject({
      is_error: true,
      content: 'Permission denied: write_file needs approval. Run with --yolo or allow it in config (permissions.allow), e.g. "write_file".',
    });
    await expect(readFile(path.join(dir, 'a.txt'))).rejects.toThrow();
  });

  it('allows everything with yolo', async () => {
    const dir = tempProject();
    const gate = createHeadlessGate({ yolo: true, allow: [] });
    expect(withoutNoSandboxNote((await call(dir, 'bash', { command: 'echo hi' }, { permissions: gate })).content)).toBe('hi\n[exit code 0]');
  });

  it('allows tools and bash commands named in the allow list, and nothing else', async () => {
    const dir = tempProject();
    const gate = createHeadlessGate({ yolo: false, allow: ['write_file', 'bash(echo exact)', 'bash(git status*)'] });
    expect(await gate.check(write)).toBe('allow');
    expect(await gate.check({ tool: 'edit_file', summary: 'edit a.txt' })).toBe('deny');
    expect(await gate.check(bash('echo exact'))).toBe('allow');
    expect(await gate.check(bash('echo exact and more'))).toBe('deny');
    expect(await gate.check(bash('git status'))).toBe('allow');
    expect(await gate.check(bash('git status --short'))).toBe('allow');
    expect(await gate.check(bash('git push'))).toBe('deny');
    // End to end: the allowed command runs, another is refused.
    expect((await call(dir, 'bash', { command: 'echo exact' }, { permissions: gate })).content).toBe('exact\n[exit code 0]');
    expect((await call(dir, 'bash', { command: 'echo other' }, { permissions: gate })).content).toContain('Permission denied: bash');
  });

  it('never lets a prefix rule cover chained or redirected commands', async () => {
    const gate = createHeadlessGate({ yolo: false, allow: ['bash(git status*)'] });
    for (const cmd of ['git status; rm -rf ~', 'git status && curl x', 'git status | sh', 'git status > f', 'git status $(rm x)', 'git status `x`', 'git status\nrm x']) {
      expect(await gate.check(bash(cmd)), cmd).toBe('deny');
    }
  });

  it('bare "bash" allows any command', async () => {
    const gate = createHeadlessGate({ yolo: false, allow: ['bash'] });
    expect(await gate.check(bash('rm -rf build && make'))).toBe('allow');
  });

  it('rejects malformed rules with a KeenError naming the rule', () => {
    expect(() => createHeadlessGate({ yolo: false, allow: ['bash(npm test'] })).toThrow(KeenError);
    expect(() => parseRule('bash(npm test', '/home/u')).toThrow('invalid permission rule "bash(npm test"');
    expect(() => parseRule('mcp__x__y(foo)', '/home/u')).toThrow('only bash (a command), the file tools (a path glob) and web_fetch (a domain) take a pattern');
    expect(() => parseRule('web_fetch(example.com)', '/home/u')).toThrow('web_fetch takes "domain:<host>"');
    expect(() => createHeadlessGate({ allowedTools: ['read_file,bash(x'] })).toThrow('--allowed-tools[1]: invalid permission rule "bash(x"');
    expect(parseRule(' bash(npm test) ', '/h')).toMatchObject({ tool: 'bash', kind: 'exact', command: 'npm test' });
    expect(parseRule('bash(git log*)', '/h')).toMatchObject({ tool: 'bash', kind: 'prefix', prefix: 'git log' });
    expect(parseRule('write_file(src/**)', '/h')).toMatchObject({ tool: 'write_file', kind: 'path', glob: 'src/**' });
  });
});

describe('session gate', () => {
  function scripted(answers: SessionAnswer[]) {
    const asked: PermissionRequest[] = [];
    const gate = createSessionGate(async (req) => {
      asked.push(req);
      return answers.shift() ?? 'deny';
    });
    return { gate, asked };
  }

  it('"once" allows one call and asks again next time', async () => {
    const { gate, asked } = scripted(['once', 'deny']);
    expect(await gate.check(write)).toBe('allow');
    expect(await gate.check(write)).toBe('deny');
    expect(asked).toHaveLength(2);
  });

  it('"session" remembers the tool, or for bash the exact command', async () => {
    const { gate, asked } = scripted(['session', 'session', 'deny']);
    expect(await gate.check(write)).toBe('allow');
    expect(await gate.check(write)).toBe('allow');
    expect(await gate.check(bash('npm test'))).toBe('allow');
    expect(await gate.check(bash('npm test'))).toBe('allow');
    expect(await gate.check(bash('npm publish'))).toBe('deny');
    expect(asked.map((r) => r.summary)).toEqual([write.summary, 'bash: npm test', 'bash: npm publish']);
    expect(gate.sessionRules()).toEqual(['write_file', 'bash(npm test)']);
  });

  it('asks one question at a time, and a "session" answer covers the calls waiting behind it', async () => {
    let release!: (a: SessionAnswer) => void;
    let asks = 0;
    const gate = createSessionGate(() => {
      asks++;
      return new Promise<SessionAnswer>((r) => (release = r));
    });
    const first = gate.check(write);
    const second = gate.check(write);
    await new Promise((r) => setTimeout(r, 10));
    expect(asks).toBe(1);
    release('session');
    expect(await Promise.all([first, second])).toEqual(['allow', 'allow']);
    expect(asks).toBe(1);
  });

  it('honours configured allow rules without asking and treats a failing prompt as deny', async () => {
    const gate = createSessionGate(
      async () => {
        throw new Error('prompt closed');
      },
      { allow: ['bash(ls*)'] },
    );
    expect(await gate.check(bash('ls -la'))).toBe('allow');
    expect(await gate.check(bash('rm x'))).toBe('deny');
  });

  it('tells the model the user declined, instead of suggesting --yolo', async () => {
    const dir = tempProject();
    const { gate } = scripted(['deny']);
    const msg = await call(dir, 'bash', { command: 'rm -rf build' }, { permissions: gate });
    expect(msg).toMatchObject({
      is_error: true,
      content: 'Permission denied: the user declined this bash call. Do not retry it unchanged; ask the user how to proceed.',
    });
  });
});
