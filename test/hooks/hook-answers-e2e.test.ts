/**
 * Hook answers end to end: a PreToolUse hook's `updatedInput`, `continue: false` from any hook,
 * and the user's `~/.claude/settings.json` hooks — the real bundle, spawned against the Anthropic
 * fake, with real sh hook scripts in the test's temp folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorLines, filesUnder, toolResults, useCliRig, userTexts } from '../e2e/cli-fixtures.js';
import type { Workspace } from '../kit/temp-dir.js';
import { streamEventSchema } from '../../src/cli/headless/stream-schema.js';

const { rig, workspace } = useCliRig();

const rootOf = (ws: Workspace) => path.dirname(ws.cwd);

/** An sh script in the temp root that prints `json` (after reading its input); returns its command. */
function answering(ws: Workspace, name: string, body: string): string {
  const file = path.join(rootOf(ws), name);
  fs.writeFileSync(file, `#!/bin/sh\ninput=$(cat)\n${body}\n`);
  return `sh '${file}'`;
}

function userConfig(ws: Workspace, config: unknown): void {
  fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify(config));
}

const preToolUse = (matcher: string, command: string) => ({ PreToolUse: [{ matcher, hooks: [{ type: 'command', command }] }] });
const allowWith = (input: unknown) => `printf '%s' '${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: input } })}'`;

function calls(list: { name: string; args: unknown }[], final = 'done'): number {
  const from = rig.fake.requests.length;
  rig.fake.enqueue({ steps: list.map((c) => ({ toolCall: c })) }, { steps: [{ text: final }] });
  return from + 1;
}

describe('PreToolUse updatedInput', () => {
  it('the tool runs with the hook’s input, judged again by the schema, the rules and the path checks', async () => {
    const ws = workspace();
    const hook = answering(
      ws,
      'rewrite.sh',
      [
        'case "$input" in',
        `  *run-original*) ${allowWith({ command: 'touch rewritten' })} ;;`,
        `  *looks-safe*) ${allowWith({ command: 'touch forbidden' })} ;;`,
        `  *bad-shape*) ${allowWith({ path: 'b.txt' })} ;;`,
        `  *inside.txt*) ${allowWith({ path: '../outside.txt', content: 'escaped\\n' })} ;;`,
        'esac',
      ].join('\n'),
    );
    userConfig(ws, { hooks: preToolUse('bash|write_file', hook), permissions: { deny: ['bash(touch forbidden)'] } });
    const second = calls([
      { name: 'bash', args: { command: 'touch run-original' } },
      { name: 'bash', args: { command: 'echo looks-safe' } },
      { name: 'write_file', args: { path: 'bad-shape.txt', content: 'x' } },
      { name: 'write_file', args: { path: 'inside.txt', content: 'x' } },
    ]);
    const r = await rig.keen(ws, ['run', 'go'], { env: { HOME: ws.home } });
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(ws.cwd, 'rewritten'))).toBe(true);
    expect(fs.existsSync(path.join(ws.cwd, 'run-original'))).toBe(false);
    const results = toolResults(rig.fake.requests[second]);
    expect(results[0].isError).toBe(false);
    // A hook's allow cannot lift a deny rule: the rewritten command is judged as what it is.
    expect(results[1].isError).toBe(true);
    expect(results[1].text).toContain('blocked by the rule "bash(touch forbidden)"');
    expect(fs.existsSync(path.join(ws.cwd, 'forbidden'))).toBe(false);
    expect(results[2]).toEqual({ text: expect.stringContaining('content'), isError: true });
    expect(results[3].isError).toBe(true);
    expect(fs.existsSync(path.join(rootOf(ws), 'outside.txt'))).toBe(false);
    expect(fs.existsSync(path.join(ws.cwd, 'inside.txt'))).toBe(false);
  });

  it('what ran is shown: the stream-json result, the transcript and the model all carry the hook’s input', async () => {
    const ws = workspace({ 'build/out.txt': 'built\n' });
    const hook = answering(ws, 'keep-build.sh', allowWith({ command: 'echo kept build' }));
    userConfig(ws, { hooks: preToolUse('bash', hook) });
    const second = calls([{ name: 'bash', args: { command: 'rm -rf build' } }]);
    const r = await rig.keen(ws, ['run', '--format', 'stream-json', 'clean up'], { env: { HOME: ws.home } });
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(ws.cwd, 'build', 'out.txt'))).toBe(true);
    const note = 'Input changed by a PreToolUse hook; ran with: {"command":"echo kept build"}';
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => streamEventSchema.parse(JSON.parse(l)) as { type: string; id?: string; input?: unknown; content?: string });
    // The call as the model made it, then the line saying what runs instead, then its result.
    const kinds = lines.map((l) => l.type).filter((t) => t.startsWith('tool_'));
    expect(kinds).toEqual(['tool_call', 'tool_input_changed', 'tool_result']);
    expect(lines.find((l) => l.type === 'tool_call')?.input).toEqual({ command: 'rm -rf build' });
    expect(lines.find((l) => l.type === 'tool_input_changed')).toEqual({
      type: 'tool_input_changed',
      id: lines.find((l) => l.type === 'tool_call')?.id,
      name: 'bash',
      input: { command: 'echo kept build' },
    });
    expect(lines.find((l) => l.type === 'tool_result')?.content).toMatch(new RegExp(`^${escaped(note)}\n[^]*kept build`));
    expect(toolResults(rig.fake.requests[second])[0].text).toMatch(new RegExp(`^${escaped(note)}\n[^]*kept build`));
    const transcript = filesUnder(path.join(ws.home, 'sessions')).find((f) => f.endsWith('transcript_events.jsonl')) ?? '';
    const records = fs
      .readFileSync(transcript, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { messages?: { role: string; content: string; tool_calls?: { args: string }[] }[]; tools?: { summary: string; input?: string }[] });
    // The card kept for a resume or an export: what ran, marked, and the input it ran with.
    expect(records.flatMap((r) => r.tools ?? [])).toEqual([
      expect.objectContaining({ summary: 'bash echo kept build (input changed by a PreToolUse hook)', input: '{"command":"echo kept build"}' }),
    ]);
    const stored = records.flatMap((r) => r.messages ?? []);
    // The call as the model made it, and the result of what ran.
    expect(stored.flatMap((m) => m.tool_calls ?? []).map((c) => JSON.parse(c.args))).toEqual([{ command: 'rm -rf build' }]);
    expect(stored.find((m) => m.role === 'tool')?.content).toMatch(new RegExp(`^${escaped(note)}\n`));
    // The exported page shows the call as it ran, marked.
    const page = await rig.keen(ws, ['export', '--continue', '-o', '-'], { env: { HOME: ws.home } });
    expect(page.code).toBe(0);
    expect(page.stdout).toContain('<span class="tool-summary">echo kept build (input changed by a PreToolUse hook)</span>');
    expect(page.stdout).toContain('&quot;command&quot;: &quot;echo kept build&quot;');
    expect(page.stdout).not.toContain('rm -rf build');
  });
});

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('continue: false', () => {
  it('from PreToolUse: the call does not run, the turn ends, the reason is one line for the user and never reaches the model', async () => {
    const ws = workspace();
    const hook = answering(ws, 'stop.sh', `printf '%s' '{"continue":false,"stopReason":"the build is red; stopping here"}'`);
    userConfig(ws, { hooks: preToolUse('bash', hook) });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'bash', args: { command: 'touch ran' } } }] });
    const r = await rig.keen(ws, ['run', '--yolo', 'go'], { env: { HOME: ws.home } });
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(ws.cwd, 'ran'))).toBe(false);
    expect(rig.since(from)).toHaveLength(1);
    expect(errorLines(r.stderr)).toEqual(['keen: warning: a PreToolUse hook stopped the turn: the build is red; stopping here']);

    userConfig(ws, {});
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });
    const next = rig.fake.requests.length;
    const c = await rig.keen(ws, ['run', '--continue', 'and now?'], { env: { HOME: ws.home } });
    expect(c.code).toBe(0);
    const sent = JSON.stringify(rig.fake.requests[next].body);
    expect(sent).not.toContain('the build is red');
    expect(userTexts(rig.fake.requests[next]).at(-1)).toBe('and now?');
  });

  it('from UserPromptSubmit: the prompt is not sent and the run ends cleanly', async () => {
    const ws = workspace();
    const hook = answering(ws, 'stop-prompt.sh', `printf '%s' '{"continue":false,"stopReason":"outside office hours"}'`);
    userConfig(ws, { hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: hook }] }] } });
    const from = rig.fake.requests.length;
    const r = await rig.keen(ws, ['run', 'go'], { env: { HOME: ws.home } });
    expect(r.code).toBe(0);
    expect(rig.since(from)).toHaveLength(0);
    expect(errorLines(r.stderr)).toEqual(['keen: warning: a UserPromptSubmit hook stopped the turn: outside office hours']);
  });
});

describe('~/.claude/settings.json', () => {
  it("the user's Claude Code hooks run in an untrusted folder too (the project's still do not)", async () => {
    const ws = workspace({ 'a.txt': 'alpha\n' });
    const root = rootOf(ws);
    const settings = (marker: string) => JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: `touch '${marker}'` }] }] } });
    fs.mkdirSync(path.join(ws.home, '.claude'));
    fs.writeFileSync(path.join(ws.home, '.claude', 'settings.json'), settings(`${root}/user-marker`));
    fs.mkdirSync(path.join(ws.cwd, '.claude'));
    fs.writeFileSync(path.join(ws.cwd, '.claude', 'settings.json'), settings(`${root}/project-marker`));
    calls([{ name: 'read_file', args: { path: 'a.txt' } }]);
    const r = await rig.keen(ws, ['run', 'go'], { env: { HOME: ws.home } });
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(root, 'user-marker'))).toBe(true);
    expect(fs.existsSync(path.join(root, 'project-marker'))).toBe(false);
  });
});
