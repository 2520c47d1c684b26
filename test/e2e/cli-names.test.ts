/**
 * Names people type (issue 26): Codex's `keen exec`, a mistyped subcommand answered with "did you
 * mean" instead of being sent to the model, model short names, a provider that does not match the
 * model's name, global options before the subcommand, and the exit code of every usage error.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIChatFake } from '../fakes/openai-chat-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { errorLines, useCliRig, userTexts } from './cli-fixtures.js';

const { rig, workspace } = useCliRig();

let openai: ScriptedServer;
beforeAll(async () => {
  openai = await startOpenAIChatFake();
});
afterAll(async () => {
  await openai.close();
});
const openaiEnv = () => ({ OPENAI_API_KEY: 'sk-test-names', OPENAI_BASE_URL: `${openai.url}/v1` });

describe('`keen exec` is `keen run`', () => {
  it('`keen exec "say hi"` runs one headless turn', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'Hi.' }] });
    const r = await rig.keen(ws, ['exec', 'say', 'hi']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Hi.\n');
    expect(userTexts(rig.since(from)[0])).toEqual(['say hi']);
  });

  it('takes the options of run (`keen exec --output-format json`), and `keen help exec` is the help of run', async () => {
    const ws = workspace();
    rig.fake.enqueue({ steps: [{ text: 'Done.' }] });
    const r = await rig.keen(ws, ['exec', '--output-format', 'json', 'go']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'result', result: 'Done.' });
    const help = await rig.keen(ws, ['help', 'exec']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: keen run\|exec /);
  });
});

describe('a mistyped subcommand is not a first message', () => {
  for (const [args, meant] of [
    [['sesion', 'list'], 'sessions'],
    [['sesions'], 'sessions'],
    [['sesions', '--all'], 'sessions'],
    [['compat', '--continue'], 'compact'],
    [['mpc', 'list'], 'mcp'],
    [['modles'], 'models'],
  ] as const) {
    it(`\`keen ${args.join(' ')}\`: "did you mean \`keen ${meant}\`", exit 2, nothing sent`, async () => {
      const ws = workspace();
      const from = rig.fake.requests.length;
      const r = await rig.keen(ws, [...args]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(errorLines(r.stderr)).toEqual([
        `keen: unknown command "${args[0]}"; did you mean \`keen ${meant}\`? (see \`keen help\`; \`keen -- ${args.join(' ')}\` sends it as a first message)`,
      ]);
      expect(rig.since(from)).toHaveLength(0);
      expect(fs.existsSync(path.join(ws.home, 'sessions'))).toBe(false);
    });
  }

  for (const args of [['fix the bug'], ['fix', 'the', 'bug'], ['hello', 'there'], ['compare', 'a.ts', 'b.ts'], ['run-tests', 'and', 'fix'], ['--', 'sesion', 'list']]) {
    it(`\`keen ${args.join(' ')}\` is a first message (the REPL, which needs a terminal)`, async () => {
      const r = await rig.keen(workspace(), args);
      expect(r.code).toBe(1);
      expect(errorLines(r.stderr)).toEqual([expect.stringMatching(/^keen: the interactive REPL needs a terminal/)]);
    });
  }
});

describe('model short names', () => {
  for (const [short, full] of [
    ['sonnet', 'claude-sonnet-5-5'],
    ['opus', 'claude-opus-5-5'],
    ['haiku', 'claude-haiku-5-5'],
  ]) {
    it(`\`--model ${short}\` sends ${full}`, async () => {
      const ws = workspace();
      const from = rig.fake.requests.length;
      rig.fake.enqueue({ steps: [{ text: 'ok' }] });
      const r = await rig.keen(ws, ['run', '--model', short, '--output-format', 'json', 'hi']);
      expect(r.code, r.stderr).toBe(0);
      expect(rig.since(from)[0].body?.model).toBe(full);
      expect(JSON.parse(r.stdout)).toMatchObject({ provider: 'anthropic', model: full });
    });
  }

  it('config `"model": "haiku"` sends the catalog haiku', async () => {
    const ws = workspace({ '.keen/config.json': JSON.stringify({ model: 'haiku' }) });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });
    const r = await rig.keen(ws, ['run', 'hi']);
    expect(r.code, r.stderr).toBe(0);
    expect(rig.since(from)[0].body?.model).toBe('claude-haiku-5-5');
  });

  it('config `compaction.model: "haiku"` summarises with the catalog haiku', async () => {
    const ws = workspace({ '.keen/config.json': JSON.stringify({ compaction: { model: 'haiku' } }) });
    rig.fake.enqueue({ steps: [{ text: 'ok' }] }, { steps: [{ text: '## Goal\nSay hi.' }] });
    const first = await rig.keen(ws, ['run', 'hi']);
    expect(first.code, first.stderr).toBe(0);
    const from = rig.fake.requests.length;
    const r = await rig.keen(ws, ['compact', '--continue']);
    expect(r.code, r.stderr).toBe(0);
    expect(rig.since(from).map((req) => req.body?.model)).toEqual(['claude-haiku-5-5']);
  });

  it('`--model gpt` picks OpenAI and gpt-5', async () => {
    const ws = workspace();
    const from = openai.requests.length;
    openai.enqueue({ steps: [{ text: 'ok' }] });
    const r = await rig.keen(ws, ['run', '--model', 'gpt', '--output-format', 'json', 'hi'], { env: openaiEnv() });
    expect(r.code, r.stderr).toBe(0);
    expect(openai.requests.slice(from)[0].body?.model).toBe('gpt-5');
    expect(JSON.parse(r.stdout)).toMatchObject({ provider: 'openai', model: 'gpt-5' });
  });

  it('a `models.sonnet` entry of the config beats the short name', async () => {
    const ws = workspace({ '.keen/config.json': JSON.stringify({ models: { sonnet: { provider: 'anthropic', id: 'claude-sonnet-4-6' } } }) });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });
    const r = await rig.keen(ws, ['run', '--model', 'sonnet', 'hi']);
    expect(r.code, r.stderr).toBe(0);
    expect(rig.since(from)[0].body?.model).toBe('claude-sonnet-4-6');
  });

  it('`keen models` names the short names', async () => {
    const r = await rig.keen(workspace(), ['models', '--output-format', 'json']);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as { name: string; short_names: string[] }[];
    expect(rows.find((row) => row.name === 'claude-opus-5-5')?.short_names).toEqual(['opus']);
  });
});

describe('a provider that does not serve the model', () => {
  it('`--provider openai --model claude-sonnet-5` warns once, then sends it to OpenAI as asked', async () => {
    const ws = workspace();
    const from = openai.requests.length;
    openai.enqueue({ steps: [{ text: 'ok' }] });
    const r = await rig.keen(ws, ['run', '--provider', 'openai', '--model', 'claude-sonnet-5', 'hi'], { env: openaiEnv() });
    expect(r.code, r.stderr).toBe(0);
    const warnings = errorLines(r.stderr).filter((l) => l.startsWith('keen: warning:'));
    expect(errorLines(r.stderr)).toEqual(warnings);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/claude-sonnet-5.*anthropic.*openai/);
    expect(openai.requests.slice(from)[0].body?.model).toBe('claude-sonnet-5');
  });

  it('a matching pair and a config entry that names the provider say nothing', async () => {
    const ws = workspace({ '.keen/config.json': JSON.stringify({ models: { 'claude-gateway': { provider: 'openai' } } }) });
    openai.enqueue({ steps: [{ text: 'ok' }] }, { steps: [{ text: 'ok' }] });
    const a = await rig.keen(ws, ['run', '--provider', 'openai', '--model', 'gpt-5', 'hi'], { env: openaiEnv() });
    const b = await rig.keen(ws, ['run', '--provider', 'openai', '--model', 'claude-gateway', 'hi'], { env: openaiEnv() });
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(a.stderr + b.stderr).toBe('');
  });
});

describe('options before the subcommand reach the request', () => {
  it('`keen --model claude-opus-5 run hi` sends claude-opus-5', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'a' }] });
    const r = await rig.keen(ws, ['--model', 'claude-opus-5', 'run', 'hi']);
    expect(r.code, r.stderr).toBe(0);
    expect(rig.since(from).map((req) => req.body?.model)).toEqual(['claude-opus-5']);
  });

  it('`keen -m sonnet exec hi` sends the model the short name stands for', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'b' }] });
    const r = await rig.keen(ws, ['-m', 'sonnet', 'exec', 'hi']);
    expect(r.code, r.stderr).toBe(0);
    expect(rig.since(from).map((req) => req.body?.model)).toEqual(['claude-sonnet-5-5']);
  });
});

describe('usage errors exit 2', () => {
  it('`keen compact` and `keen context` without a session: the same line, exit 2', async () => {
    const ws = workspace();
    const compact = await rig.keen(ws, ['compact']);
    const context = await rig.keen(ws, ['context']);
    expect([compact.code, context.code]).toEqual([2, 2]);
    expect(errorLines(compact.stderr)).toEqual(['keen: keen compact needs --session <id> or --continue (list sessions with `keen sessions`)']);
    expect(errorLines(context.stderr)).toEqual(['keen: keen context needs --session <id> or --continue (list sessions with `keen sessions`)']);
  });

  for (const args of [
    ['mcp', 'bogus'],
    ['mcp', 'add'],
    ['mcp', 'remove'],
    ['mcp', 'add', '--transport', 'ftp', 'x', 'y'],
    ['login', 'anthropic'],
    ['--permission-mode', 'bogus', 'run', 'hi'],
    ['--provider', 'anthropc', 'run', 'hi'],
    ['undo', '--turns', '0'],
  ]) {
    it(`\`keen ${args.join(' ')}\`: one line, exit 2`, async () => {
      const ws = workspace();
      const r = await rig.keen(ws, args);
      expect(r.code, r.stderr).toBe(2);
      expect(errorLines(r.stderr)).toEqual([expect.stringMatching(/^keen: /)]);
      expect(fs.existsSync(path.join(ws.home, 'config.json'))).toBe(false);
    });
  }

  it('`keen --dangerously-skip-permissions sessions` names the option typed', async () => {
    const r = await rig.keen(workspace(), ['--dangerously-skip-permissions', 'sessions']);
    expect(r.code).toBe(2);
    expect(errorLines(r.stderr)).toEqual([expect.stringMatching(/^keen: --dangerously-skip-permissions does not apply to `keen sessions`/)]);
  });
});
