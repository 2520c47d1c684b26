/**
 * Headless parity: stream-json output (validated line by line against the published schema) and
 * input, the result fields, --max-turns / KEEN_MAX_TURNS, --system-prompt / --append-system-prompt,
 * -C, `keen models`, `keen completion` and `keen context`, each by spawning bin/keen.js.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { streamEventSchema } from '../../src/cli/headless/stream-schema.js';
import { isCompactionRequest } from '../kit/anthropic-wire-helpers.js';
import { filesUnder, useCliRig, userTexts } from './cli-fixtures.js';
import { cleanEnv, KEEN_BIN } from './harness.js';

const { rig, workspace } = useCliRig();
afterEach(() => rig.fake.setResponder(undefined));

const TINY_MODEL = { models: { tiny: { provider: 'anthropic', contextWindow: 12_000, maxOutputTokens: 1000 } }, model: 'tiny' };
const log = (n: number) => Array.from({ length: 150 }, (_, k) => `entry ${k} of log ${n}: code_${(k * 7919 + n) % 10007} ok`).join('\n');

/** Every stdout line parsed and checked against the stream-json schema. */
function events(stdout: string): any[] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => {
      const parsed = streamEventSchema.safeParse(JSON.parse(line));
      expect(parsed.success, `${line}\n${parsed.error?.message}`).toBe(true);
      return parsed.data;
    });
}

describe('--output-format stream-json', () => {
  it('a run with tools and an automatic compaction: init, deltas, tool calls and results, compaction, result', async () => {
    const files: Record<string, string> = { '.keen/config.json': JSON.stringify(TINY_MODEL) };
    for (let n = 1; n <= 4; n++) files[`log-${n}.txt`] = log(n);
    const ws = workspace(files);
    let turns = 0;
    rig.fake.setResponder((req) => {
      if (isCompactionRequest(req)) return { steps: [{ text: '## Goal\nRead every log.' }] };
      turns++;
      if (turns > 4) return { steps: [{ text: 'Finished.' }] };
      return { steps: [{ text: `Reading log-${turns}. ` }, { toolCall: { id: `t${turns}`, name: 'read_file', args: { path: `log-${turns}.txt` } } }] };
    });

    const r = await rig.keen(ws, ['-p', '--output-format', 'stream-json', 'Read every log.']);

    expect(r.code, r.stderr).toBe(0);
    const evs = events(r.stdout);
    expect(evs[0]).toMatchObject({ type: 'system', subtype: 'init', provider: 'anthropic', model: 'tiny', cwd: fs.realpathSync(ws.cwd) });
    expect(evs[0].tools).toEqual(expect.arrayContaining(['read_file', 'bash', 'edit_file']));
    const types = evs.map((e) => e.type);
    expect(types.at(-1)).toBe('result');
    expect(types.filter((t) => t === 'tool_call')).toHaveLength(4);
    expect(types.filter((t) => t === 'tool_result')).toHaveLength(4);
    expect(evs.find((e) => e.type === 'tool_call')).toMatchObject({ id: 't1', name: 'read_file', input: { path: 'log-1.txt' } });
    expect(evs.find((e) => e.type === 'tool_result')).toMatchObject({ id: 't1', is_error: false });
    const applied = evs.find((e) => e.type === 'compaction' && e.subtype === 'applied');
    expect(applied.tokens_before).toBeGreaterThan(applied.tokens_after);
    expect(types.indexOf('compaction')).toBeLessThan(types.lastIndexOf('tool_call'));
    const text = evs
      .filter((e) => e.type === 'text_delta')
      .map((e) => e.text)
      .join('');
    expect(text).toContain('Reading log-1.');
    expect(text).toContain('Finished.');
    const result = evs.at(-1);
    expect(result).toMatchObject({ subtype: 'success', is_error: false, compactions: 1, num_turns: 5, session_id: evs[0].session_id });
    expect(result.result).toMatch(/Finished\.$/);
    expect(result.usage.input).toBeGreaterThan(0);
  });

  it('--input-format stream-json: one turn per stdin line in one session, a result after each', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'First answer.' }] }, { steps: [{ text: 'Second answer.' }] });
    const stdin = [
      JSON.stringify({ type: 'user', message: { role: 'user', content: 'first question' } }),
      'this is not json',
      JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'second question' }] } }),
    ].join('\n');

    const r = await rig.keen(ws, ['--input-format', 'stream-json', '--output-format', 'stream-json'], { stdin });

    expect(r.code).toBe(1); // the bad line is reported and counts as an error
    expect(r.stderr.trim()).toMatch(/^keen: stdin line 2 skipped: not JSON/);
    const evs = events(r.stdout);
    const results = evs.filter((e) => e.type === 'result');
    expect(results.map((e) => e.result)).toEqual(['First answer.', 'Second answer.']);
    expect(results[0].session_id).toBe(results[1].session_id);
    const sent = rig.since(from);
    expect(userTexts(sent[1])).toEqual(['first question', 'second question']);
  });
});

describe('stream-json input and the project context', () => {
  it('a driver that writes AGENTS.md after the init event gets it in its first turn (no stale read from the open)', async () => {
    const ws = workspace({ 'AGENTS.md': 'Rule from before the open.\n' });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });
    const child = spawn(process.execPath, [KEEN_BIN, '--input-format', 'stream-json', '--output-format', 'stream-json'], {
      cwd: ws.cwd,
      env: cleanEnv({ KEEN_HOME: ws.home, ANTHROPIC_API_KEY: 'sk-ant-e2e-stream', ANTHROPIC_BASE_URL: rig.fake.url }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('"type":"system"')) resolve();
      }),
    );
    fs.writeFileSync(path.join(ws.cwd, 'AGENTS.md'), 'Rule written after the init event.\n');
    child.stdin.end(`${JSON.stringify({ type: 'user', message: { role: 'user', content: 'go' } })}\n`);
    expect(await closed).toBe(0);
    const system = JSON.stringify(rig.since(from)[0].body.system);
    expect(system).toContain('Rule written after the init event.');
    expect(system).not.toContain('Rule from before the open.');
  });
});

describe('limits and prompts', () => {
  it('--max-turns 1 stops after one request: exit 1, subtype error_max_turns; KEEN_MAX_TURNS does the same', async () => {
    const ws = workspace({ 'a.txt': 'a\n' });
    rig.fake.setResponder(() => ({ steps: [{ toolCall: { name: 'read_file', args: { path: 'a.txt' } } }] }));
    const from = rig.fake.requests.length;
    const a = await rig.keen(ws, ['run', '--max-turns', '1', '--output-format', 'json', 'loop']);
    expect(a.code).toBe(1);
    expect(JSON.parse(a.stdout)).toMatchObject({ subtype: 'error_max_turns', is_error: true, num_turns: 1, error: { kind: 'max_turns' } });
    expect(rig.since(from)).toHaveLength(1);
    const b = await rig.keen(ws, ['run', 'loop'], { env: { KEEN_MAX_TURNS: '2' } });
    expect(b.code).toBe(1);
    expect(rig.since(from)).toHaveLength(3);
    const bad = await rig.keen(ws, ['run', 'loop'], { env: { KEEN_MAX_TURNS: 'lots' } });
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toMatch(/^keen: invalid KEEN_MAX_TURNS="lots"/);
  });

  it('--system-prompt replaces the base instructions (text or @FILE); --append-system-prompt adds to the end', async () => {
    const ws = workspace({ 'persona.md': 'You are a terse reviewer.\n', 'AGENTS.md': 'Project rule.\n' });
    rig.fake.enqueue({ steps: [{ text: 'a' }] }, { steps: [{ text: 'b' }] });
    const from = rig.fake.requests.length;
    await rig.keen(ws, ['run', '--system-prompt', '@persona.md', '--append-system-prompt', 'Answer in French.', 'hi']);
    await rig.keen(ws, ['run', '--system-prompt', 'Inline base.', 'hi']);
    const [a, b] = rig.since(from).map((q) => JSON.stringify(q.body.system));
    expect(a).toContain('You are a terse reviewer.');
    expect(a).not.toContain('You are Keen');
    expect(a).toContain('Project rule.');
    expect(a).toMatch(/Answer in French\.[\s\S]*$/);
    expect(b).toContain('Inline base.');
    const missing = await rig.keen(ws, ['run', '--system-prompt', '@nope.md', 'hi']);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toMatch(/^keen: --system-prompt: cannot read .*nope\.md/);
  });

  it('-C DIR runs in DIR: its config, its files, its sessions', async () => {
    const ws = workspace({ 'sub/notes.txt': 'NOTE-77\n' });
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'read_file', args: { path: 'notes.txt' } } }] }, { steps: [{ text: 'read it' }] });
    const from = rig.fake.requests.length;
    const r = await rig.keen(ws, ['run', '-C', 'sub', '--output-format', 'json', 'read notes.txt']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.stringify(rig.since(from)[1].body.messages)).toContain('NOTE-77');
    const sessions = await rig.keen(ws, ['sessions']);
    expect(sessions.stdout).toMatch(/No sessions in this directory/);
    const bad = await rig.keen(ws, ['run', '--cwd', 'missing-dir', 'hi']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('keen: --cwd missing-dir: no such directory');
  });
});

describe('keen models, completion and context', () => {
  it('`keen models` lists catalog and configured models with provider, window and output limit', async () => {
    const ws = workspace({ '.keen/config.json': JSON.stringify({ models: { 'local-qwen': { provider: 'openai', contextWindow: 32768, maxOutputTokens: 8192 } } }) });
    const r = await rig.keen(ws, ['models']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^MODEL\s+PROVIDER\s+WINDOW\s+OUTPUT/);
    expect(r.stdout).toMatch(/^gpt-5\s+openai\s+400,000\s+128,000\b/m);
    expect(r.stdout).toMatch(/^local-qwen\s+openai\s+32,768\s+8,192\b.*config/m);
    const json = JSON.parse((await rig.keen(ws, ['models', '--output-format', 'json'])).stdout);
    expect(json.find((m: any) => m.name === 'claude-sonnet-5-5')).toMatchObject({ provider: 'anthropic', context_window: 200000, default_for: ['anthropic'] });
  });

  it('`keen completion bash|zsh|fish` prints scripts naming the commands; bash parses it', async () => {
    const ws = workspace();
    for (const shell of ['bash', 'zsh', 'fish']) {
      const r = await rig.keen(ws, ['completion', shell]);
      expect(r.code).toBe(0);
      for (const word of ['run', 'compact', 'models', 'output-format']) expect(r.stdout).toContain(word);
    }
    const bash = (await rig.keen(ws, ['completion', 'bash'])).stdout;
    const file = path.join(ws.cwd, 'keen.bash');
    fs.writeFileSync(file, bash);
    execFileSync('bash', ['-n', file]);
    const words = execFileSync('bash', ['-c', `source ${JSON.stringify(file)}; COMP_WORDS=(keen run --out); COMP_CWORD=2; _keen; echo "\${COMPREPLY[*]}"`], { encoding: 'utf8' });
    expect(words.trim()).toBe('--output-format');
    const bad = await rig.keen(ws, ['completion', 'tcsh']);
    expect(bad.code).toBe(2);
  });

  it('`keen context --continue` shows the parts, the threshold and the compactions (text and JSON)', async () => {
    const files: Record<string, string> = { '.keen/config.json': JSON.stringify(TINY_MODEL) };
    for (let n = 1; n <= 4; n++) files[`log-${n}.txt`] = log(n);
    const ws = workspace(files);
    let turns = 0;
    rig.fake.setResponder((req) => {
      if (isCompactionRequest(req)) return { steps: [{ text: '## Goal\nRead every log.' }] };
      turns++;
      if (turns > 4) return { steps: [{ text: 'Finished.' }] };
      return { steps: [{ toolCall: { id: `t${turns}`, name: 'read_file', args: { path: `log-${turns}.txt` } } }] };
    });
    const run = await rig.keen(ws, ['run', 'Read every log.']);
    expect(run.code, run.stderr).toBe(0);
    const from = rig.fake.requests.length;

    const json = await rig.keen(ws, ['context', '--continue', '--output-format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ window: 12_000, model: 'tiny' });
    expect(report.auto_compact_at).toBe(Math.floor(0.9 * (12_000 - 4096)));
    expect(report.parts.map((p: any) => p.name)).toEqual(['system_prompt', 'tools', 'instructions', 'conversation', 'tool_outputs']);
    expect(report.parts.reduce((a: number, p: any) => a + p.tokens, 0)).toBe(report.tokens);
    expect(report.free).toBe(report.window - report.tokens);
    expect(report.compactions).toHaveLength(1);
    expect(report.compactions[0]).toMatchObject({ mode: 'auto' });
    expect(report.compactions[0].tokensBefore).toBeGreaterThan(report.compactions[0].tokensAfter);

    const text = await rig.keen(ws, ['context', '--continue']);
    expect(text.stdout).toMatch(/^\[[█▓▒░▚·|]{60}\]$/m);
    expect(text.stdout).toContain('automatic compaction at');
    expect(text.stdout).toMatch(/automatic\s+[\d,]+ → [\d,]+ tokens/);
    expect(rig.since(from)).toHaveLength(0); // nothing was sent to the model

    // It needs no key and writes nothing, even when the environment names another model.
    const transcript = filesUnder(path.join(ws.home, 'sessions')).find((f) => f.endsWith('transcript_events.jsonl'))!;
    const before = fs.readFileSync(transcript, 'utf8');
    const keyless = await rig.keen(ws, ['context', '--continue'], { env: { ANTHROPIC_API_KEY: undefined, KEEN_MODEL: 'claude-opus-5' } });
    expect(keyless.code, keyless.stderr).toBe(0);
    expect(fs.readFileSync(transcript, 'utf8')).toBe(before);
  });
});

describe('interruption', () => {
  it('Ctrl+C (SIGINT) mid-answer: exit 130, a JSON result with error_cancelled, the session kept with the continue hint', async () => {
    const ws = workspace();
    rig.fake.enqueue({ steps: [{ text: 'Starting a long answer…' }, { delayMs: 20_000 }, { text: 'never' }] });
    const child = spawn(process.execPath, [KEEN_BIN, 'run', '--output-format', 'json', 'take your time'], {
      cwd: ws.cwd,
      env: cleanEnv({ KEEN_HOME: ws.home, ANTHROPIC_API_KEY: 'sk-int', ANTHROPIC_BASE_URL: rig.fake.url }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.end();
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    // Interrupt once the request is in flight (the fake has received it).
    const sent = rig.fake.requests.length;
    while (rig.fake.requests.length === sent) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(130);
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({ subtype: 'error_cancelled', is_error: true, error: { kind: 'cancelled' } });
    expect(out.session_id).toMatch(/^\d{8}-/);
    expect(stderr).toContain(`Run \`keen run --session ${out.session_id}\` to continue.`);
  });
});
