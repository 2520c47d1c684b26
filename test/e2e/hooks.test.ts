/**
 * Hooks end to end (issue 28): the real bundle, spawned against the Anthropic fake, running real
 * hook scripts (small sh scripts in the test's temp folder, outside the project) at each step.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Workspace } from '../kit/temp-dir.js';
import { errorLines, FAKE_KEY, storedSessionId, toolResults, useCliRig, userTexts } from './cli-fixtures.js';

const { rig, workspace } = useCliRig();

/** The workspace's temp root (beside the project and KEEN_HOME): scripts and markers live there. */
const rootOf = (ws: Workspace) => path.dirname(ws.cwd);

/** Writes an sh script into the temp root; returns the command that runs it. */
function script(ws: Workspace, name: string, body: string): string {
  const file = path.join(rootOf(ws), name);
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`);
  return `sh '${file}'`;
}

function userHooks(ws: Workspace, hooks: unknown, extra: Record<string, unknown> = {}): void {
  fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ hooks, ...extra }));
}

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, any>;

/** One reply with these tool calls, then a final text; returns the index of the second request. */
function calls(list: { name: string; args: unknown }[], final = 'done'): number {
  const from = rig.fake.requests.length;
  rig.fake.enqueue({ steps: list.map((c) => ({ toolCall: c })) }, { steps: [{ text: final }] });
  return from + 1;
}

describe('PreToolUse', () => {
  it('exit 2 blocks bash (matched as Claude Code\'s "Bash"): the command does not run, the reason is the tool result', async () => {
    const ws = workspace();
    const root = rootOf(ws);
    const hook = script(ws, 'pre.sh', `cat > '${root}/pre-input.json'\necho "no bash here: team policy" >&2\nexit 2`);
    userHooks(ws, { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: hook }] }] });
    const second = calls([{ name: 'bash', args: { command: 'touch ran' } }]);
    const r = await rig.keen(ws, ['run', '--yolo', 'go']);
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(ws.cwd, 'ran'))).toBe(false);
    const [result] = toolResults(rig.fake.requests[second]);
    expect(result).toEqual({ text: 'Blocked by a PreToolUse hook: no bash here: team policy', isError: true });
    const input = readJson(path.join(root, 'pre-input.json'));
    expect(input).toMatchObject({ hook_event_name: 'PreToolUse', tool_name: 'bash', tool_input: { command: 'touch ran' }, cwd: ws.cwd });
    expect(input.session_id).toMatch(/\S/);
    expect(input.transcript_path).toContain(input.session_id);
  });

  it('answers allow / deny / ask as JSON: allow runs without --yolo, a deny rule still wins, ask is refused headless', async () => {
    const ws = workspace();
    const hook = script(
      ws,
      'decide.sh',
      [
        'input=$(cat)',
        'answer() { printf \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"%s","permissionDecisionReason":"%s"}}\' "$1" "$2"; }',
        'case "$input" in',
        '  *allowed-by-hook*) answer allow "fine" ;;',
        '  *denied-by-hook*) answer deny "not today" ;;',
        '  *asked-by-hook*) answer ask "a human should look" ;;',
        'esac',
      ].join('\n'),
    );
    userHooks(
      ws,
      { PreToolUse: [{ matcher: 'bash', hooks: [{ type: 'command', command: hook }] }] },
      { permissions: { deny: ['bash(echo allowed-by-hook but-denied:*)'], allow: ['bash(echo asked-by-hook:*)'] } },
    );
    const second = calls([
      { name: 'bash', args: { command: 'echo allowed-by-hook' } },
      { name: 'bash', args: { command: 'echo denied-by-hook' } },
      { name: 'bash', args: { command: 'echo asked-by-hook' } },
      { name: 'bash', args: { command: 'echo allowed-by-hook but-denied' } },
      { name: 'bash', args: { command: 'echo no-answer' } },
    ]);
    const r = await rig.keen(ws, ['run', 'go']);
    expect(r.code).toBe(0);
    const results = toolResults(rig.fake.requests[second]);
    expect(results[0]).toEqual({ text: expect.stringContaining('allowed-by-hook'), isError: false });
    expect(results[1]).toEqual({ text: 'Blocked by a PreToolUse hook: not today', isError: true });
    expect(results[2].isError).toBe(true);
    expect(results[2].text).toContain('a PreToolUse hook asks for approval of this bash call (a human should look)');
    expect(results[3].isError).toBe(true);
    expect(results[3].text).toContain('blocked by the rule "bash(echo allowed-by-hook but-denied:*)"');
    // No answer: the rules decide as without hooks (headless asks are refused).
    expect(results[4].isError).toBe(true);
    expect(results[4].text).toContain('needs approval');
  });

  it('a hook past its timeout is stopped, named in a warning, and the call goes on', async () => {
    const ws = workspace();
    const hook = script(ws, 'slow.sh', 'sleep 30');
    userHooks(ws, { PreToolUse: [{ hooks: [{ type: 'command', command: hook, timeout: 1 }] }] });
    const second = calls([{ name: 'bash', args: { command: 'echo after-the-hook' } }]);
    const r = await rig.keen(ws, ['run', '--yolo', 'go']);
    expect(r.code).toBe(0);
    expect(toolResults(rig.fake.requests[second])[0]).toEqual({ text: expect.stringContaining('after-the-hook'), isError: false });
    expect(errorLines(r.stderr)).toEqual([`keen: warning: PreToolUse hook \`${hook}\` did not finish within 1s and was stopped; the step went on`]);
  });
});

describe('PostToolUse', () => {
  it('sees tool_response; a block adds its reason to the result the model reads', async () => {
    const ws = workspace();
    const root = rootOf(ws);
    const hook = script(ws, 'post.sh', `cat > '${root}/post-input.json'\necho '{"decision":"block","reason":"lint failed: fix the style"}'`);
    userHooks(ws, { PostToolUse: [{ matcher: 'bash|edit_file', hooks: [{ type: 'command', command: hook }] }] });
    const second = calls([{ name: 'bash', args: { command: 'echo hello-post' } }]);
    const r = await rig.keen(ws, ['run', '--yolo', 'go']);
    expect(r.code).toBe(0);
    const input = readJson(path.join(root, 'post-input.json'));
    expect(input).toMatchObject({ hook_event_name: 'PostToolUse', tool_name: 'bash', tool_input: { command: 'echo hello-post' } });
    expect(input.tool_response.content).toContain('hello-post');
    const [result] = toolResults(rig.fake.requests[second]);
    expect(result.text).toContain('hello-post');
    expect(result.text).toContain('PostToolUse hook: lint failed: fix the style');
  });
});

describe('UserPromptSubmit and Stop', () => {
  it('a blocked prompt is never sent: the reason is the one error line', async () => {
    const ws = workspace();
    const root = rootOf(ws);
    const hook = script(ws, 'prompt.sh', `cat > '${root}/prompt-input.json'\necho "prompts about deploys go through the runbook" >&2\nexit 2`);
    userHooks(ws, { UserPromptSubmit: [{ hooks: [{ type: 'command', command: hook }] }] });
    const from = rig.fake.requests.length;
    const r = await rig.keen(ws, ['run', 'deploy it now']);
    expect(r.code).not.toBe(0);
    expect(rig.since(from)).toHaveLength(0);
    expect(r.stderr).toContain('prompt blocked by a UserPromptSubmit hook: prompts about deploys go through the runbook');
    expect(readJson(path.join(root, 'prompt-input.json'))).toMatchObject({ hook_event_name: 'UserPromptSubmit', prompt: 'deploy it now' });
  });

  it('a Stop hook that blocks sends the model back with its reason; stop_hook_active says so the second time', async () => {
    const ws = workspace();
    const root = rootOf(ws);
    const hook = script(
      ws,
      'stop.sh',
      `cat >> '${root}/stop-inputs.jsonl'\necho >> '${root}/stop-inputs.jsonl'\nif [ -e '${root}/stopped-once' ]; then exit 0; fi\ntouch '${root}/stopped-once'\necho "run the tests before you stop" >&2\nexit 2`,
    );
    userHooks(ws, { Stop: [{ hooks: [{ type: 'command', command: hook }] }] });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'first answer' }] }, { steps: [{ text: 'tests ran' }] });
    const r = await rig.keen(ws, ['run', 'go']);
    expect(r.code).toBe(0);
    const sent = rig.since(from);
    expect(sent).toHaveLength(2);
    expect(userTexts(sent[1]).at(-1)).toBe('Stop hook: run the tests before you stop');
    const inputs = fs
      .readFileSync(path.join(root, 'stop-inputs.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(inputs.map((i) => i.stop_hook_active)).toEqual([false, true]);
  });
});

describe('context for the model', () => {
  it('SessionStart stdout and UserPromptSubmit additionalContext go with the prompt; a resume says source "resume"', async () => {
    const ws = workspace();
    const root = rootOf(ws);
    const start = script(ws, 'start.sh', `cat > '${root}/start-input.json'\necho "release freeze until Friday"`);
    const prompt = script(ws, 'prompt.sh', `echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"branch: main"}}'`);
    userHooks(ws, { SessionStart: [{ hooks: [{ type: 'command', command: start }] }], UserPromptSubmit: [{ hooks: [{ type: 'command', command: prompt }] }] });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });
    const r = await rig.keen(ws, ['run', 'hi']);
    expect(r.code).toBe(0);
    expect(userTexts(rig.fake.requests[from]).at(-1)).toBe('hi\n\n<hook_context>\nrelease freeze until Friday\nbranch: main\n</hook_context>');
    expect(readJson(path.join(root, 'start-input.json'))).toMatchObject({ hook_event_name: 'SessionStart', source: 'startup' });

    const id = storedSessionId(ws.home);
    expect(id).toBeDefined();
    rig.fake.enqueue({ steps: [{ text: 'again' }] });
    const again = await rig.keen(ws, ['run', '--session', id as string, 'more']);
    expect(again.code).toBe(0);
    expect(readJson(path.join(root, 'start-input.json'))).toMatchObject({ source: 'resume', session_id: id });
  });
});

describe('PreCompact', () => {
  it('keen compact runs it with trigger "manual"; a block leaves the history as it was', async () => {
    const ws = workspace();
    const root = rootOf(ws);
    rig.fake.enqueue({ steps: [{ text: 'first answer' }] });
    expect((await rig.keen(ws, ['run', 'hello'])).code).toBe(0);
    const id = storedSessionId(ws.home) as string;
    const hook = script(ws, 'compact.sh', `cat > '${root}/compact-input.json'\necho "keep the whole history until the audit" >&2\nexit 2`);
    userHooks(ws, { PreCompact: [{ matcher: 'manual', hooks: [{ type: 'command', command: hook }] }] });
    const from = rig.fake.requests.length;
    const c = await rig.keen(ws, ['compact', '--session', id]);
    expect(c.code).not.toBe(0);
    expect(c.stderr).toContain('compaction blocked by a PreCompact hook: keep the whole history until the audit');
    expect(rig.since(from)).toHaveLength(0);
    expect(readJson(path.join(root, 'compact-input.json'))).toMatchObject({ hook_event_name: 'PreCompact', trigger: 'manual', session_id: id });
  });
});

describe('trust and environment', () => {
  it("an untrusted project's hooks (.keen/config.json, .claude/settings.json) never run; --trust runs them", async () => {
    const claudeHooks = (marker: string) => ({ hooks: { PreToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: `touch '${marker}'` }] }] } });
    const ws = workspace({ 'a.txt': 'alpha\n' });
    const root = rootOf(ws);
    fs.mkdirSync(path.join(ws.cwd, '.keen'));
    fs.writeFileSync(
      path.join(ws.cwd, '.keen/config.json'),
      JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `touch '${root}/keen-marker'` }] }] } }),
    );
    fs.mkdirSync(path.join(ws.cwd, '.claude'));
    fs.writeFileSync(path.join(ws.cwd, '.claude/settings.json'), JSON.stringify(claudeHooks(`${root}/claude-marker`)));

    calls([{ name: 'read_file', args: { path: 'a.txt' } }]);
    const r = await rig.keen(ws, ['run', 'go']);
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(root, 'keen-marker'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'claude-marker'))).toBe(false);
    const lines = errorLines(r.stderr);
    expect(lines.some((l) => l.includes('.keen/config.json') && l.includes('ignored hooks because this folder is not trusted'))).toBe(true);
    expect(lines.some((l) => l.includes(path.join('.claude', 'settings.json')) && l.includes('ignored hooks because this folder is not trusted'))).toBe(true);

    calls([{ name: 'read_file', args: { path: 'a.txt' } }]);
    const t = await rig.keen(ws, ['run', '--trust', 'go']);
    expect(t.code).toBe(0);
    expect(fs.existsSync(path.join(root, 'keen-marker'))).toBe(true);
    expect(fs.existsSync(path.join(root, 'claude-marker'))).toBe(true);
  });

  it("a hook's environment holds no API key, and names the project folder", async () => {
    const ws = workspace();
    const root = rootOf(ws);
    const hook = script(ws, 'env.sh', `env > '${root}/hook-env.txt'`);
    userHooks(ws, { UserPromptSubmit: [{ hooks: [{ type: 'command', command: hook }] }] });
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });
    const r = await rig.keen(ws, ['run', 'hi'], { env: { OPENAI_API_KEY: 'sk-openai-e2e-hook-secret' } });
    expect(r.code).toBe(0);
    const env = fs.readFileSync(path.join(root, 'hook-env.txt'), 'utf8');
    expect(env).not.toContain(FAKE_KEY);
    expect(env).not.toContain('sk-openai-e2e-hook-secret');
    expect(env).not.toMatch(/^ANTHROPIC_/m);
    expect(env).toContain(`CLAUDE_PROJECT_DIR=${ws.cwd}`);
    expect(env).toContain(`KEEN_PROJECT_DIR=${ws.cwd}`);
  });
});
