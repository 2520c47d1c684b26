import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, mergeConfig, readConfigFile } from '../../src/config/load.js';
import { keenHome, projectConfigPath, userConfigPath } from '../../src/config/paths.js';
import { KeenError } from '../../src/errors.js';
import { tempDir } from '../kit/temp-dir.js';

/** A temp KEEN_HOME and project directory, with the given config texts (undefined: no file). */
function setup(user?: string, project?: string): { home: string; cwd: string } {
  const root = tempDir('keen-config-');
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'project');
  fs.mkdirSync(path.join(cwd, '.keen'), { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  if (user !== undefined) fs.writeFileSync(userConfigPath(home), user);
  if (project !== undefined) fs.writeFileSync(projectConfigPath(cwd), project);
  return { home, cwd };
}

/** The one-line message loadConfig fails with. */
function failure(project: string): string {
  const { home, cwd } = setup(undefined, project);
  try {
    loadConfig(home, cwd);
  } catch (err) {
    expect(err).toBeInstanceOf(KeenError);
    const message = (err as Error).message;
    expect(message).not.toContain('\n');
    expect(message).toContain(projectConfigPath(cwd));
    return message;
  }
  throw new Error('expected loadConfig to fail');
}

describe('loadConfig', () => {
  it('is empty when neither file exists', () => {
    const { home, cwd } = setup();
    expect(loadConfig(home, cwd).config).toMatchObject({ models: {}, providers: {}, compaction: {}, permissions: { allow: [] } });
    expect(loadConfig(home, cwd).config.model).toBeUndefined();
  });

  it('reads the user file alone', () => {
    const { home, cwd } = setup(JSON.stringify({ model: 'claude-opus-5', maxTurns: 7 }));
    expect(loadConfig(home, cwd).config).toMatchObject({ model: 'claude-opus-5', maxTurns: 7 });
  });

  it('lets a trusted project file win, merging models, providers, compaction per key and joining allow lists', () => {
    const user = {
      provider: 'anthropic',
      model: 'claude-opus-5',
      maxTurns: 7,
      models: { fast: { provider: 'openai', id: 'gpt-5-mini' }, big: { contextWindow: 1_000_000 } },
      providers: { openai: { apiKeyEnv: 'MY_OPENAI' }, anthropic: { baseURL: 'http://127.0.0.1:9999' } },
      compaction: { threshold: 0.8, auto: true },
      permissions: { allow: ['edit_file'] },
    };
    const project = {
      model: 'fast',
      models: { fast: { provider: 'openai', id: 'gpt-5' } },
      providers: { openai: {} },
      compaction: { auto: false },
      permissions: { allow: ['bash(npm test)'] },
    };
    const { home, cwd } = setup(JSON.stringify(user), JSON.stringify(project));
    const { config, notice } = loadConfig(home, cwd, { projectTrusted: true });
    expect(notice).toBeUndefined();
    expect(config.provider).toBe('anthropic');
    expect(config.model).toBe('fast');
    expect(config.maxTurns).toBe(7);
    expect(config.models).toEqual({ fast: { provider: 'openai', id: 'gpt-5' }, big: { contextWindow: 1_000_000 } });
    expect(config.providers).toEqual({ openai: { apiKeyEnv: 'MY_OPENAI' }, anthropic: { baseURL: 'http://127.0.0.1:9999' } });
    expect(config.compaction).toEqual({ threshold: 0.8, auto: false });
    expect(config.permissions?.allow).toEqual(['edit_file', 'bash(npm test)']);
  });

  it('says whether either file declares MCP servers (an untrusted project’s too: they are named as skipped)', () => {
    const server = JSON.stringify({ mcpServers: { ev: { command: 'node' } } });
    const none = setup(JSON.stringify({ model: 'x' }), JSON.stringify({ maxTurns: 3 }));
    expect(loadConfig(none.home, none.cwd).declaresMcpServers).toBe(false);
    const user = setup(server);
    expect(loadConfig(user.home, user.cwd).declaresMcpServers).toBe(true);
    const project = setup(undefined, server);
    expect(loadConfig(project.home, project.cwd).declaresMcpServers).toBe(true);
    expect(loadConfig(project.home, project.cwd, { projectTrusted: true }).declaresMcpServers).toBe(true);
  });

  it('mergeConfig keeps the base when the override is empty', () => {
    const base = { model: 'x', models: { x: { contextWindow: 10 } } };
    expect(mergeConfig(base, {})).toMatchObject(base);
  });
});

describe('config validation messages: one line naming the file and the field', () => {
  it('invalid JSON', () => {
    expect(failure('{"model": ')).toMatch(/^invalid JSON in config \S+config\.json: /);
  });

  it('an unknown top-level field', () => {
    expect(failure('{"modle": "claude-opus-5"}')).toMatch(/: unknown field modle$/);
  });

  it('an unknown nested field names its full path', () => {
    expect(failure('{"models": {"fast": {"contextwindow": 1000}}}')).toMatch(/unknown field models\.fast\.contextwindow$/);
    expect(failure('{"compaction": {"treshold": 0.5}}')).toMatch(/unknown field compaction\.treshold$/);
  });

  it('an MCP server entry (built lazily, on first use) names its field like any other', () => {
    expect(failure('{"mcpServers": {"web": {"type": "http"}}}')).toMatch(/: field mcpServers\.web\.url: a "http" server needs a url$/);
    expect(failure('{"mcpServers": {"ev": {"command": "node", "bogus": 1}}}')).toMatch(/: unknown field mcpServers\.ev\.bogus$/);
    expect(failure('{"mcpServers": {"two words": {"command": "node"}}}')).toMatch(/: field mcpServers\.two words: server names use letters/);
  });

  it('a wrong type', () => {
    const message = failure('{"maxTurns": "ten"}');
    expect(message).toMatch(/field maxTurns: /);
    expect(message).toMatch(/expected number/);
  });

  it('an out-of-range value', () => {
    expect(failure('{"compaction": {"threshold": 2}}')).toMatch(/field compaction\.threshold: .*1/);
    expect(failure('{"models": {"m": {"contextWindow": -1}}}')).toMatch(/field models\.m\.contextWindow: /);
  });

  it('an unknown provider names the valid ones', () => {
    const message = failure('{"provider": "nope"}');
    expect(message).toMatch(/field provider: /);
    expect(message).toContain('anthropic');
    expect(message).toContain('bedrock');
  });

  it('a bad URL', () => {
    expect(failure('{"providers": {"anthropic": {"baseURL": "not a url"}}}')).toMatch(/field providers\.anthropic\.baseURL: /);
  });

  it('array items are named with their index', () => {
    expect(failure('{"permissions": {"allow": ["edit_file", 3]}}')).toMatch(/field permissions\.allow\[1\]: /);
  });

  it('a malformed permissions.allow rule is caught at load time, naming the entry', () => {
    const message = failure('{"permissions": {"allow": ["edit_file", "bash(npm test"]}}');
    expect(message).toMatch(/field permissions\.allow\[1\]: /);
    expect(message).toContain('"bash(npm test"');
  });

  it('a file that is not an object', () => {
    expect(failure('[]')).toMatch(/must hold one JSON object/);
  });

  it('the user file is named when it is the broken one', () => {
    const { home, cwd } = setup('{"maxTurns": 0}', '{}');
    expect(() => loadConfig(home, cwd)).toThrow(new RegExp(`${userConfigPath(home).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: field maxTurns`));
  });

  it('an unreadable path (a directory) is a one-line error naming it', () => {
    const { home } = setup();
    fs.mkdirSync(userConfigPath(home));
    expect(() => readConfigFile(userConfigPath(home))).toThrow(/^cannot read config \S+config\.json: /);
  });
});

describe('keenHome', () => {
  it('is KEEN_HOME resolved to an absolute path, else ~/.keen', () => {
    expect(keenHome({ KEEN_HOME: 'rel/home' })).toBe(path.resolve('rel/home'));
    expect(keenHome({ KEEN_HOME: '  ' })).toBe(path.join(os.homedir(), '.keen'));
    expect(keenHome({})).toBe(path.join(os.homedir(), '.keen'));
  });
});
