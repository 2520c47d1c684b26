/**
 * `keen run` end to end: the real bundle, spawned in a temp workspace with a temp KEEN_HOME,
 * talking to the loopback Anthropic fake. Tool loop, permissions, output formats, input sources.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorLines, resumeIdOf, useCliRig, toolResults, userTexts, wireMessages } from './cli-fixtures.js';

const { rig, workspace } = useCliRig();

const GREET = 'export const greet = (name: string) => `Hello, ${name}!`;\n';

describe('keen run: the tool loop', () => {
  it('with --yolo reads a file, edits it, runs a command and prints the final answer', async () => {
    const ws = workspace({ 'src/greet.ts': GREET });
    const from = rig.fake.requests.length;
    rig.fake.enqueue(
      { steps: [{ text: 'Let me look at the file.' }, { toolCall: { name: 'read_file', args: { path: 'src/greet.ts' } } }] },
      { steps: [{ toolCall: { name: 'edit_file', args: { path: 'src/greet.ts', old_string: 'Hello', new_string: 'Howdy' } } }] },
      { steps: [{ toolCall: { name: 'bash', args: { command: 'grep -c Howdy src/greet.ts && echo "MARKER-$((6*7))"' } } }] },
      { steps: [{ text: 'Changed the greeting to Howdy.' }] },
    );

    const r = await rig.keen(ws, ['run', '--yolo', 'make the greeting friendlier']);

    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Let me look at the file.\nChanged the greeting to Howdy.\n');
    expect(fs.readFileSync(path.join(ws.cwd, 'src/greet.ts'), 'utf8')).toBe(GREET.replace('Hello', 'Howdy'));

    const sent = rig.since(from);
    expect(sent).toHaveLength(4);
    expect(userTexts(sent[0])).toEqual(['make the greeting friendlier']);
    // The read reached the model, then the edit succeeded, then the command's output.
    const results = toolResults(sent[3]);
    expect(results).toHaveLength(3);
    expect(results.every((t) => !t.isError)).toBe(true);
    expect(results[0].text).toContain('Hello, ${name}!');
    expect(results[2].text).toContain('MARKER-42');
    expect(results[2].text).toMatch(/^1$/m);
  });

  it('without --yolo denies a write: the model is told about --yolo, the file is untouched, exit 0', async () => {
    const ws = workspace({ 'notes.md': 'original\n' });
    const from = rig.fake.requests.length;
    rig.fake.enqueue(
      { steps: [{ toolCall: { name: 'edit_file', args: { path: 'notes.md', old_string: 'original', new_string: 'changed' } } }] },
      { steps: [{ toolCall: { name: 'write_file', args: { path: 'new.md', content: 'x' } } }] },
      { steps: [{ toolCall: { name: 'bash', args: { command: 'touch created-by-bash' } } }] },
      { steps: [{ text: 'I am not allowed to change files here.' }] },
    );

    const r = await rig.keen(ws, ['run', 'change the notes']);

    expect(r.code).toBe(0);
    expect(r.stdout).toBe('I am not allowed to change files here.\n');
    expect(errorLines(r.stderr)).toEqual([]);
    expect(fs.readFileSync(path.join(ws.cwd, 'notes.md'), 'utf8')).toBe('original\n');
    expect(fs.existsSync(path.join(ws.cwd, 'new.md'))).toBe(false);
    expect(fs.existsSync(path.join(ws.cwd, 'created-by-bash'))).toBe(false);

    const results = toolResults(rig.since(from)[3]);
    expect(results).toHaveLength(3);
    for (const result of results) {
      expect(result.isError).toBe(true);
      expect(result.text).toContain('--yolo');
      expect(result.text).toContain('permissions.allow');
    }
  });

  it("the user's config permissions.allow lets the listed tools and commands run, and only those", async () => {
    const config = { permissions: { allow: ['edit_file', 'bash(echo allowed*)'] } };
    const ws = workspace({ 'notes.md': 'original\n' });
    fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify(config));
    const from = rig.fake.requests.length;
    rig.fake.enqueue(
      {
        steps: [
          { toolCall: { name: 'edit_file', args: { path: 'notes.md', old_string: 'original', new_string: 'changed' } } },
          { toolCall: { name: 'bash', args: { command: 'echo allowed-command-ran' } } },
          { toolCall: { name: 'bash', args: { command: 'echo allowed; touch sneaky' } } },
          { toolCall: { name: 'write_file', args: { path: 'other.md', content: 'x' } } },
        ],
      },
      { steps: [{ text: 'Edited.' }] },
    );

    const r = await rig.keen(ws, ['run', 'edit the notes']);

    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Edited.\n');
    expect(fs.readFileSync(path.join(ws.cwd, 'notes.md'), 'utf8')).toBe('changed\n');
    expect(fs.existsSync(path.join(ws.cwd, 'sneaky'))).toBe(false);
    expect(fs.existsSync(path.join(ws.cwd, 'other.md'))).toBe(false);
    const results = toolResults(rig.since(from)[1]);
    expect(results.map((t) => t.isError)).toEqual([false, false, true, true]);
    expect(results[1].text).toContain('allowed-command-ran');
    expect(results[3].text).toContain('--yolo');
  });
});

describe('keen run: failures', () => {
  it('a context-length error exits non-zero with one error line (plus the resume hint) and no stack', async () => {
    const ws = workspace();
    rig.fake.enqueue({ error: { status: 400, message: 'prompt is too long: 215000 tokens > 200000 maximum' } });

    const r = await rig.keen(ws, ['run', 'summarise everything']);

    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    const lines = errorLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^keen: /);
    expect(lines[0]).toMatch(/too long|context/i);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    // The session holds the prompt, so the hint is useful: the user can compact it and go on.
    const id = resumeIdOf(r.stderr);
    expect(id).toBeDefined();
    expect(r.stderr.trim().split('\n')).toHaveLength(2);
  });
});

describe('keen run: failures in JSON and limits', () => {
  it('with --format json a failure still prints one JSON object, carrying the error kind', async () => {
    const ws = workspace();
    rig.fake.enqueue({ error: { status: 400, message: 'prompt is too long: 215000 tokens > 200000 maximum' } });
    const r = await rig.keen(ws, ['run', '--format', 'json', 'summarise everything']);
    expect(r.code).not.toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    const out = JSON.parse(r.stdout);
    expect(out.error.kind).toBe('context_window');
    expect(out.session_id).toBe(resumeIdOf(r.stderr));
    expect(errorLines(r.stderr)).toHaveLength(1);
  });

  it('config maxTurns stops a tool loop with one line, exit code 1 and the continue hint', async () => {
    const ws = workspace({ 'a.txt': 'a\n', '.keen/config.json': JSON.stringify({ maxTurns: 2 }) });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'read_file', args: { path: 'a.txt' } } }] }, { steps: [{ toolCall: { name: 'read_file', args: { path: 'a.txt' } } }] });
    const r = await rig.keen(ws, ['run', 'loop forever']);
    expect(r.code).toBe(1);
    expect(resumeIdOf(r.stderr)).toMatch(/^\d{8}-/);
    expect(rig.since(from)).toHaveLength(2);
    const lines = errorLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/maximum number of tool turns.*maxTurns/);
  });
});

describe('keen run: output and input', () => {
  it('--format json prints exactly one JSON object with session_id, result and usage', async () => {
    const ws = workspace();
    rig.fake.enqueue({ steps: [{ text: 'The answer is 42.' }], usage: { input: 1200, output: 7, cacheRead: 300, cacheWrite: 50 } });

    const r = await rig.keen(ws, ['run', '--format', 'json', 'what is the answer?']);

    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    const out = JSON.parse(r.stdout);
    expect(out.session_id).toMatch(/^\d{8}-\d{6}-[0-9a-z]{6}$/);
    expect(r.stderr).toBe('');
    expect(out).toMatchObject({ type: 'result', subtype: 'success', is_error: false, error: null, num_turns: 1, cost_is_estimate: true });
    expect(out.duration_ms).toBeGreaterThanOrEqual(0);
    // claude-sonnet list price: $3/M input, $15/M output, cache read $0.30/M, cache write $3.75/M.
    expect(out.total_cost_usd).toBeCloseTo((1200 * 3 + 7 * 15 + 300 * 0.3 + 50 * 3.75) / 1e6, 9);
    expect(out.result).toBe('The answer is 42.');
    expect(out.usage).toMatchObject({ input: 1200, output: 7, cache_read: 300, cache_write: 50 });
  });

  it('reads the message from stdin when none is given', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'Got it from the pipe.' }] });

    const r = await rig.keen(ws, ['run'], { stdin: 'explain the build\nin two lines\n' });

    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Got it from the pipe.\n');
    expect(userTexts(rig.since(from)[0]).join('')).toContain('explain the build\nin two lines');
  });

  it('with neither a message nor stdin: one line, non-zero, nothing sent', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    const r = await rig.keen(ws, ['run']);
    expect(r.code).not.toBe(0);
    expect(errorLines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/no message/);
    expect(rig.since(from)).toHaveLength(0);
  });

  it('`keen run -p MSG` and `keen -p MSG` are aliases of `keen run MSG`, and run options after -p apply', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'one' }] }, { steps: [{ text: 'two' }] });

    const a = await rig.keen(ws, ['run', '-p', 'first via run -p', '--format', 'json']);
    const b = await rig.keen(ws, ['-p', 'second via keen -p']);

    expect(a.code).toBe(0);
    expect(JSON.parse(a.stdout).result).toBe('one');
    expect(b.code).toBe(0);
    expect(b.stdout).toBe('two\n');
    const sent = rig.since(from);
    expect(userTexts(sent[0])).toEqual(['first via run -p']);
    expect(userTexts(sent[1])).toEqual(['second via keen -p']);
  });

  it('`keen --version` prints the package.json version', async () => {
    const ws = workspace();
    const pkg = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8'));
    const r = await rig.keen(ws, ['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${pkg.version}\n`);
    expect(r.stderr).toBe('');
  });

  it('sends the workspace project instructions and the tools to the model', async () => {
    const ws = workspace({ 'AGENTS.md': 'Always answer in haiku.\n' });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });
    const r = await rig.keen(ws, ['run', 'hi']);
    expect(r.code).toBe(0);
    const req = rig.since(from)[0];
    expect(JSON.stringify(req.body.system)).toContain('Always answer in haiku.');
    const names = (req.body.tools as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['read_file', 'write_file', 'edit_file', 'glob', 'grep', 'bash', 'list_dir']));
    expect(wireMessages(req)).toHaveLength(1);
  });
});
