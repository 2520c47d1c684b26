/**
 * The command line as a new user tries it (issue 18, "found by trying it"): every word of a
 * prompt is sent, piped stdin joins it, `keen help` helps, a mistyped command is an error, a run
 * that never reaches the model leaves no session, model names pick their provider, hints appear
 * only when there is something to continue, and every error has one prefix.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorLines, filesUnder, resumeIdOf, useCliRig, userTexts } from './cli-fixtures.js';

const { rig, workspace } = useCliRig();

describe('the prompt: every word, and piped stdin', () => {
  it('`keen -p fix the bug` and `keen run fix the bug` send all the words', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'a' }] }, { steps: [{ text: 'b' }] });
    const a = await rig.keen(ws, ['-p', 'fix', 'the', 'bug']);
    const b = await rig.keen(ws, ['run', 'fix', 'the', 'other', 'bug']);
    expect([a.code, b.code]).toEqual([0, 0]);
    const sent = rig.since(from);
    expect(userTexts(sent[0])).toEqual(['fix the bug']);
    expect(userTexts(sent[1])).toEqual(['fix the other bug']);
  });

  it('`echo CONTEXT | keen -p summarize` sends the prompt with the piped text after it', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'Summary.' }] });
    const r = await rig.keen(ws, ['-p', 'summarize'], { stdin: 'CONTEXT line one\nline two\n' });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Summary.\n');
    expect(userTexts(rig.since(from)[0])).toEqual(['summarize\n\nCONTEXT line one\nline two']);
  });

  it('`cat task.md | keen -p` sends the file', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'Done.' }] });
    const r = await rig.keen(ws, ['-p'], { stdin: '# Task\nRename foo to bar.\n' });
    expect(r.code).toBe(0);
    expect(userTexts(rig.since(from)[0])).toEqual(['# Task\nRename foo to bar.']);
  });

  it('`keen -p` with neither words nor stdin is a usage error (exit 2), nothing sent', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    const r = await rig.keen(ws, ['-p']);
    expect(r.code).toBe(2);
    expect(errorLines(r.stderr)).toEqual([expect.stringMatching(/^keen: no message/)]);
    expect(rig.since(from)).toHaveLength(0);
  });
});

describe('help and unknown commands', () => {
  it('`keen help` prints the commands; `keen help run` the options of run; nothing starts', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    const top = await rig.keen(ws, ['help']);
    expect(top.code).toBe(0);
    for (const cmd of ['run', 'compact', 'sessions', 'models', 'context', 'completion', 'help']) expect(top.stdout).toMatch(new RegExp(`^  ${cmd}\\b`, 'm'));
    const run = await rig.keen(ws, ['help', 'run']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: keen run(\|exec)? /);
    expect(run.stdout).toContain('--output-format');
    expect(run.stdout).toContain('--max-turns');
    expect(rig.since(from)).toHaveLength(0);
    expect(fs.existsSync(path.join(ws.home, 'sessions'))).toBe(false);
  });

  it('`keen bogus-subcommand` is one error line with exit 2, not a first message', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    const r = await rig.keen(ws, ['bogus-subcommand']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^keen: unknown command "bogus-subcommand" \(see `keen help`/)]);
    expect(rig.since(from)).toHaveLength(0);
  });

  it('`keen help bogus` names the unknown command', async () => {
    const r = await rig.keen(workspace(), ['help', 'bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/^keen: unknown command "bogus"/);
  });

  it('a first message with spaces still starts the REPL with it (which needs a terminal)', async () => {
    const r = await rig.keen(workspace(), ['fix the bug']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^keen: the interactive REPL needs a terminal/);
  });
});

describe('one error prefix, and the help of the command at fault', () => {
  for (const [args, help] of [
    [['run', '--bogus', 'hi'], 'keen run --help'],
    [['--bogus'], 'keen --help'],
    [['run', '--output-format', 'yaml', 'hi'], 'keen run --help'],
    [['compact', '--nope'], 'keen compact --help'],
    [['run', '--max-turns', 'many', 'hi'], 'keen run --help'],
  ] as const) {
    it(`keen ${args.join(' ')}: one \`keen:\` line pointing at \`${help}\`, exit 2`, async () => {
      const r = await rig.keen(workspace(), [...args]);
      expect(r.code).toBe(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^keen: /);
      expect(lines[0]).not.toMatch(/error:/);
      expect(lines[0]).toContain(`(see \`${help}\`)`);
    });
  }

  it('a usage error of a JSON run still prints one result object', async () => {
    const r = await rig.keen(workspace(), ['run', '--output-format', 'json', '--max-turns', '0', 'hi']);
    expect(r.code).toBe(2);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ type: 'result', is_error: true, subtype: 'error_startup', error: { kind: 'usage' } });
  });
});

describe('--resume and --continue', () => {
  it('`keen --resume` without an id outside a terminal says how to pick, exit 2', async () => {
    const r = await rig.keen(workspace(), ['--resume']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/^keen: --resume without an id opens a picker and needs a terminal/);
  });

  it('a headless `--resume` without an id is a usage error, never a silent new session', async () => {
    for (const args of [
      ['-r', '-p', 'hi'],
      ['run', 'hi', '--resume'],
    ]) {
      const ws = workspace();
      const r = await rig.keen(ws, args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim()).toMatch(/--resume .*id/);
      expect(fs.existsSync(path.join(ws.home, 'sessions'))).toBe(false);
    }
  });

  it('`keen run -r ID`, `keen run --resume ID` and `keen run -c` continue the session', async () => {
    const ws = workspace();
    rig.fake.enqueue({ steps: [{ text: 'one' }] }, { steps: [{ text: 'two' }] }, { steps: [{ text: 'three' }] }, { steps: [{ text: 'four' }] });
    const first = await rig.keen(ws, ['run', '--output-format', 'json', 'first']);
    const id = JSON.parse(first.stdout).session_id;
    const from = rig.fake.requests.length;
    for (const args of [
      ['run', '-r', id, 'second'],
      ['run', '--resume', id, 'third'],
      ['run', '-c', 'fourth'],
    ]) {
      const r = await rig.keen(ws, args);
      expect(r.code, r.stderr).toBe(0);
    }
    const sent = rig.since(from);
    expect(userTexts(sent[2])).toEqual(['first', 'second', 'third', 'fourth']);
  });
});

describe('nothing is saved when the model is never reached', () => {
  it('a refused key (401): no session on disk, no hint, and --continue then finds none', async () => {
    const ws = workspace();
    rig.fake.enqueue({ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } });
    const r = await rig.keen(ws, ['run', 'hello there']);
    expect(r.code).toBe(1);
    expect(resumeIdOf(r.stderr)).toBeUndefined();
    expect(errorLines(r.stderr)).toHaveLength(1);
    expect(filesUnder(path.join(ws.home, 'sessions'))).toEqual([]);
    const again = await rig.keen(ws, ['run', '--continue', 'again']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/no session to continue/);
  });

  it('an unreachable server: the JSON result has session_id null and no file is written', async () => {
    const ws = workspace();
    const r = await rig.keen(ws, ['run', '--output-format', 'json', 'hello'], { env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', KEEN_MAX_RETRIES: '0' } });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ is_error: true, subtype: 'error_during_execution', session_id: null, error: { kind: 'network' } });
    expect(filesUnder(path.join(ws.home, 'sessions'))).toEqual([]);
  });

  it('a resumed session keeps its history and does not record the failed message', async () => {
    const ws = workspace();
    rig.fake.enqueue({ steps: [{ text: 'ok' }] }, { error: { status: 401, message: 'invalid x-api-key' } }, { steps: [{ text: 'ok again' }] });
    const first = await rig.keen(ws, ['run', '--output-format', 'json', 'kept']);
    const id = JSON.parse(first.stdout).session_id;
    const failed = await rig.keen(ws, ['run', '--session', id, 'lost']);
    expect(failed.code).toBe(1);
    const from = rig.fake.requests.length;
    const r = await rig.keen(ws, ['run', '--session', id, 'next']);
    expect(r.code).toBe(0);
    expect(userTexts(rig.since(from)[0])).toEqual(['kept', 'next']);
  });
});

describe('model names pick their provider', () => {
  it('`--model gpt-9` goes to OpenAI (its key is the one asked for), not Anthropic', async () => {
    const r = await rig.keen(workspace(), ['run', '--model', 'gpt-9', 'hi']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('OPENAI_API_KEY');
    expect(r.stderr).not.toContain('ANTHROPIC_API_KEY');
  });

  it('an unknown model without a known prefix is one line with close names and `keen models`', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    const r = await rig.keen(ws, ['run', '--model', 'claud-sonet-5', 'hi']);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^keen: unknown model "claud-sonet-5"; did you mean claude-sonnet-5\b/);
    expect(lines[0]).toContain('`keen models`');
    expect(rig.since(from)).toHaveLength(0);
  });

  it('`KEEN_MODEL` works like --model, and --model beats it', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'a' }] }, { steps: [{ text: 'b' }] });
    await rig.keen(ws, ['run', 'hi'], { env: { KEEN_MODEL: 'claude-opus-5' } });
    await rig.keen(ws, ['run', '--model', 'claude-haiku-5-5', 'hi'], { env: { KEEN_MODEL: 'claude-opus-5' } });
    const sent = rig.since(from);
    expect(sent.map((q) => q.body.model)).toEqual(['claude-opus-5', 'claude-haiku-5-5']);
  });
});
