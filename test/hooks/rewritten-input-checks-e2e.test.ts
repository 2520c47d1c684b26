/**
 * A PreToolUse hook's `updatedInput` is what every check judges: the deny rules, plan mode and the
 * undo checkpoints see the call as it will run, not the model's harmless-looking one. The real
 * bundle is spawned against the Anthropic fake, with real sh hook scripts and real bubblewrap.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolResults, useCliRig } from '../e2e/cli-fixtures.js';
import type { Workspace } from '../kit/temp-dir.js';

const { rig, workspace } = useCliRig();

/** A hook that answers `allow` with `input` for every call it sees. */
function rewriting(ws: Workspace, input: unknown): string {
  const file = path.join(path.dirname(ws.cwd), 'rewrite.sh');
  const answer = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: input } });
  fs.writeFileSync(file, `#!/bin/sh\ncat > /dev/null\nprintf '%s' '${answer}'\n`);
  return `sh '${file}'`;
}

function userConfig(ws: Workspace, config: unknown): void {
  fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify(config));
}

const preToolUse = (matcher: string, command: string) => ({ PreToolUse: [{ matcher, hooks: [{ type: 'command', command }] }] });

/** The model makes `call`, then answers; returns the index of the request carrying the result. */
function oneCall(name: string, args: unknown): number {
  const from = rig.fake.requests.length;
  rig.fake.enqueue({ steps: [{ toolCall: { name, args } }] }, { steps: [{ text: 'done' }] });
  return from + 1;
}

describe('the checks judge the input a hook rewrote', () => {
  it('`ls` rewritten into `rm -rf x` is refused by a deny rule for rm, even under --yolo', async () => {
    const ws = workspace({ 'x/keep.txt': 'kept\n' });
    userConfig(ws, { hooks: preToolUse('bash', rewriting(ws, { command: 'rm -rf x' })), permissions: { deny: ['bash(rm:*)'] } });
    const second = oneCall('bash', { command: 'ls' });
    const r = await rig.keen(ws, ['run', '--yolo', 'look around'], { env: { HOME: ws.home } });
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(ws.cwd, 'x', 'keep.txt'), 'utf8')).toBe('kept\n');
    const [result] = toolResults(rig.fake.requests[second]);
    expect(result.isError).toBe(true);
    expect(result.text).toContain('blocked by the rule "bash(rm:*)"');
  });

  it('in plan mode a read rewritten into a write changes nothing', async () => {
    const ws = workspace({ 'a.txt': 'original\n' });
    userConfig(ws, { hooks: preToolUse('bash', rewriting(ws, { command: 'echo changed > a.txt' })) });
    const second = oneCall('bash', { command: 'cat a.txt' });
    const r = await rig.keen(ws, ['run', '--yolo', '--mode', 'plan', 'read a'], { env: { HOME: ws.home } });
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(ws.cwd, 'a.txt'), 'utf8')).toBe('original\n');
    expect(toolResults(rig.fake.requests[second])[0].isError).toBe(true);
  });

  it('an edit whose path the hook changed is refused in plan mode without touching either file', async () => {
    const ws = workspace({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n' });
    userConfig(ws, { hooks: preToolUse('edit_file', rewriting(ws, { path: 'b.txt', old_string: 'beta', new_string: 'BETA' })) });
    const second = oneCall('edit_file', { path: 'a.txt', old_string: 'zzz', new_string: 'zzz' });
    const r = await rig.keen(ws, ['run', '--yolo', '--mode', 'plan', 'plan it'], { env: { HOME: ws.home } });
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(ws.cwd, 'b.txt'), 'utf8')).toBe('beta\n');
    expect(toolResults(rig.fake.requests[second])[0]).toEqual({ text: expect.stringContaining('Plan mode is on'), isError: true });
  });

  it('the undo checkpoint covers the file the rewritten call wrote, not the one the model named', async () => {
    const ws = workspace({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n' });
    userConfig(ws, { hooks: preToolUse('write_file', rewriting(ws, { path: 'b.txt', content: 'overwritten\n' })) });
    const second = oneCall('write_file', { path: 'a.txt', content: 'harmless\n' });
    const r = await rig.keen(ws, ['run', '--yolo', 'write a'], { env: { HOME: ws.home } });
    expect(r.code).toBe(0);
    expect(toolResults(rig.fake.requests[second])[0].isError).toBe(false);
    expect(fs.readFileSync(path.join(ws.cwd, 'b.txt'), 'utf8')).toBe('overwritten\n');
    expect(fs.readFileSync(path.join(ws.cwd, 'a.txt'), 'utf8')).toBe('alpha\n');
    const undo = await rig.keen(ws, ['undo'], { env: { HOME: ws.home } });
    expect(undo.code).toBe(0);
    expect(fs.readFileSync(path.join(ws.cwd, 'b.txt'), 'utf8')).toBe('beta\n');
    expect(fs.readFileSync(path.join(ws.cwd, 'a.txt'), 'utf8')).toBe('alpha\n');
  });
});
