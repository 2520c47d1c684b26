/**
 * Hooks in the REPL (in-process, real session against the Anthropic fake): `/hooks` lists what
 * runs, by file; a UserPromptSubmit hook that blocks keeps the prompt from the model.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempWorkspace } from '../kit/temp-dir.js';
import { afterToolResult } from './fake-requests.js';
import { startHarness, type ReplHarness } from './harness.js';

let h: ReplHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('hooks in the REPL', () => {
  it("/hooks lists the user's and the trusted project's hooks; a blocked prompt is not sent", async () => {
    const ws = tempWorkspace();
    const block = path.join(path.dirname(ws.cwd), 'block.sh');
    writeFileSync(block, '#!/bin/sh\necho "ask in #deploys first" >&2\nexit 2\n');
    writeFileSync(
      path.join(ws.home, 'config.json'),
      JSON.stringify({
        sandbox: { mode: 'off' },
        hooks: {
          PreToolUse: [{ matcher: 'Bash|mcp__*', hooks: [{ type: 'command', command: 'true', timeout: 5 }] }],
          UserPromptSubmit: [{ hooks: [{ type: 'command', command: `sh '${block}'` }] }],
        },
      }),
    );
    h = await startHarness({
      workspace: ws,
      flags: { trust: true },
      config: { hooks: { PostToolUse: [{ matcher: 'edit_file', hooks: [{ type: 'command', command: 'npx prettier --write .' }] }] } },
      responder: () => ({ steps: [{ text: 'should not be reached' }] }),
    });
    h.send('/hooks');
    const frame = await h.waitFor('npx prettier');
    expect(frame).toContain(`${path.join(ws.home, 'config.json')}:`);
    expect(frame).toMatch(/PreToolUse\s+Bash\|mcp__\*\s+5s\s+true/);
    expect(frame).toMatch(/UserPromptSubmit\s+\*\s+60s\s+sh /);
    expect(frame).toContain(`${path.join('<cwd>', '.keen', 'config.json')}:`);
    expect(frame).toMatch(/PostToolUse\s+edit_file\s+60s\s+npx prettier --write \./);

    h.send('deploy to prod');
    await h.waitFor('prompt blocked by a UserPromptSubmit hook: ask in #deploys first');
    expect(h.fake.requests).toHaveLength(0);
  });

  it('a permission question runs the Notification hooks with its message', async () => {
    const ws = tempWorkspace();
    const seen = path.join(path.dirname(ws.cwd), 'notification.json');
    writeFileSync(
      path.join(ws.home, 'config.json'),
      JSON.stringify({ sandbox: { mode: 'off' }, hooks: { Notification: [{ matcher: 'permission_prompt', hooks: [{ type: 'command', command: `cat > '${seen}'` }] }] } }),
    );
    h = await startHarness({
      workspace: ws,
      responder: (req) => (afterToolResult(req) ? { steps: [{ text: 'ran it' }] } : { steps: [{ toolCall: { name: 'bash', args: { command: 'echo hi' } } }] }),
    });
    h.send('say hi');
    await h.waitFor('Allow bash?');
    await h.waitFor(() => existsSync(seen) && readFileSync(seen, 'utf8').endsWith('}'));
    expect(JSON.parse(readFileSync(seen, 'utf8'))).toMatchObject({
      hook_event_name: 'Notification',
      notification_type: 'permission_prompt',
      message: 'Keen needs your permission to use bash',
      cwd: ws.cwd,
    });
    h.write('1');
    await h.waitFor('ran it');
  });

  it("a PreToolUse hook's ask asks even under --yolo, naming its reason", async () => {
    const ws = tempWorkspace();
    const ask = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"a human should look"}}'`;
    writeFileSync(
      path.join(ws.home, 'config.json'),
      JSON.stringify({ sandbox: { mode: 'off' }, hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: ask }] }] } }),
    );
    h = await startHarness({
      workspace: ws,
      flags: { yolo: true },
      responder: (req) => (afterToolResult(req) ? { steps: [{ text: 'ran it' }] } : { steps: [{ toolCall: { name: 'bash', args: { command: 'echo hi' } } }] }),
    });
    h.send('say hi');
    const frame = await h.waitFor('Allow bash?');
    expect(frame).toContain('(PreToolUse hook: a human should look)');
    h.write('1');
    await h.waitFor('ran it');
  });

  it("a PreToolUse hook's ask with updatedInput: the question is about the input that will run", async () => {
    const ws = tempWorkspace();
    const ask = `printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","updatedInput":{"command":"echo rewritten"}}}'`;
    writeFileSync(
      path.join(ws.home, 'config.json'),
      JSON.stringify({ sandbox: { mode: 'off' }, hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: ask }] }] } }),
    );
    h = await startHarness({
      workspace: ws,
      responder: (req) => (afterToolResult(req) ? { steps: [{ text: 'ran it' }] } : { steps: [{ toolCall: { name: 'bash', args: { command: 'echo original' } } }] }),
    });
    h.send('say hi');
    const frame = await h.waitFor('Allow bash?');
    expect(frame).toContain('echo rewritten (input changed by a PreToolUse hook)');
    expect(frame).not.toContain('echo original');
    h.write('1');
    await h.waitFor('ran it');
  });

  it("a PreToolUse hook's updatedInput: the tool card is redrawn with what ran, marked, its text sanitised", async () => {
    const ws = tempWorkspace();
    // The hook's command carries a window-title sequence: the card shows it escaped, never obeyed.
    const rewrite = `printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo \\"kept \\u001b]0;PWNED\\u0007\\""}}}'`;
    writeFileSync(
      path.join(ws.home, 'config.json'),
      JSON.stringify({ sandbox: { mode: 'off' }, hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: rewrite }] }] } }),
    );
    h = await startHarness({
      workspace: ws,
      responder: (req) => (afterToolResult(req) ? { steps: [{ text: 'cleaned' }] } : { steps: [{ toolCall: { name: 'bash', args: { command: 'rm -rf build' } } }] }),
    });
    h.send('clean up');
    const frame = await h.waitFor('cleaned');
    expect(frame).toMatch(/✓ bash echo "kept \\x1b]0;PWNED\\x07"\n\s+⎿ \(input changed by a PreToolUse hook\)/);
    expect(frame).not.toContain('rm -rf build');
    expect(frame).not.toContain('\x1b]0;');
  });
});
