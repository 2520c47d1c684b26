import { describe, expect, it } from 'vitest';
import { combineVerdicts, interpretRun, type HookRun } from '../../src/hooks/decision.js';

const run = (over: Partial<HookRun>): HookRun => ({ code: 0, stdout: '', stderr: '', timedOut: false, ...over });
const pre = { event: 'PreToolUse' as const, command: 'check.sh', timeoutSeconds: 60 };
const stop = { event: 'Stop' as const, command: 'stop.sh', timeoutSeconds: 60 };

describe('interpretRun', () => {
  it('exit 0 with nothing to say goes on', () => {
    expect(interpretRun(pre, run({ stdout: 'formatted 3 files\n' }))).toEqual({ warnings: [] });
  });

  it('exit 2 blocks with stderr as the reason (PreToolUse: a deny)', () => {
    expect(interpretRun(pre, run({ code: 2, stderr: 'no rm -rf\n' }))).toEqual({ block: 'no rm -rf', permission: 'deny', reason: 'no rm -rf', warnings: [] });
    expect(interpretRun(stop, run({ code: 2, stderr: 'run the tests' }))).toEqual({ block: 'run the tests', warnings: [] });
    expect(interpretRun(stop, run({ code: 2 })).block).toBe('blocked by the Stop hook `stop.sh`');
  });

  it('JSON decisions: block, and PreToolUse permissionDecision allow / deny / ask (approve is allow)', () => {
    expect(interpretRun(stop, run({ stdout: '{"decision":"block","reason":"not yet"}' })).block).toBe('not yet');
    const answer = (d: string) =>
      run({ stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: d, permissionDecisionReason: 'because' } }) });
    expect(interpretRun(pre, answer('allow'))).toEqual({ permission: 'allow', reason: 'because', warnings: [] });
    expect(interpretRun(pre, answer('ask'))).toEqual({ permission: 'ask', reason: 'because', warnings: [] });
    expect(interpretRun(pre, answer('deny'))).toEqual({ block: 'because', permission: 'deny', reason: 'because', warnings: [] });
    expect(interpretRun(pre, run({ stdout: '{"decision":"approve"}' })).permission).toBe('allow');
    // permissionDecision means nothing outside PreToolUse.
    expect(interpretRun(stop, answer('deny'))).toEqual({ warnings: [] });
  });

  it('updatedInput with allow / ask (never with deny), and continue: false from any event', () => {
    const out = (o: unknown) => run({ stdout: JSON.stringify(o) });
    const specific = (d: string) => ({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: d, updatedInput: { command: 'npm test' } } });
    expect(interpretRun(pre, out(specific('allow')))).toEqual({ permission: 'allow', updatedInput: { command: 'npm test' }, warnings: [] });
    expect(interpretRun(pre, out(specific('ask'))).updatedInput).toEqual({ command: 'npm test' });
    expect(interpretRun(pre, out(specific('deny'))).updatedInput).toBeUndefined();
    expect(combineVerdicts([interpretRun(pre, out(specific('allow'))), { permission: 'deny', block: 'no', warnings: [] }]).updatedInput).toBeUndefined();
    expect(interpretRun(stop, out({ continue: false, stopReason: 'enough\nmore' })).stop).toBe('enough');
    expect(interpretRun(pre, out({ continue: false })).stop).toBe('the PreToolUse hook gave no reason');
    expect(interpretRun(pre, out({ continue: true })).stop).toBeUndefined();
  });

  it('context: plain stdout of UserPromptSubmit / SessionStart, additionalContext of those and PostToolUse', () => {
    const prompt = { event: 'UserPromptSubmit' as const, command: 'ctx.sh', timeoutSeconds: 60 };
    const post = { event: 'PostToolUse' as const, command: 'ctx.sh', timeoutSeconds: 60 };
    expect(interpretRun(prompt, run({ stdout: 'branch: main\n' }))).toEqual({ context: 'branch: main', warnings: [] });
    expect(interpretRun(post, run({ stdout: 'formatted\n' }))).toEqual({ warnings: [] });
    const extra = run({ stdout: '{"hookSpecificOutput":{"additionalContext":"3 lint warnings"}}' });
    expect(interpretRun(post, extra)).toEqual({ context: '3 lint warnings', warnings: [] });
    expect(interpretRun(prompt, extra).context).toBe('3 lint warnings');
    expect(interpretRun(pre, extra)).toEqual({ warnings: [] });
    expect(combineVerdicts([{ context: 'a', warnings: [] }, { warnings: [] }, { context: 'b', warnings: [] }]).context).toBe('a\nb');
  });

  it('other exits, a start failure and a timeout warn and go on', () => {
    expect(interpretRun(pre, run({ code: 1, stderr: 'lint crashed\nat line 3' }))).toEqual({ warnings: ['PreToolUse hook `check.sh` exited with code 1: lint crashed'] });
    expect(interpretRun(pre, run({ code: null, error: 'spawn sh ENOENT' })).warnings).toEqual(['PreToolUse hook `check.sh` could not start: spawn sh ENOENT']);
    expect(interpretRun(pre, run({ code: null, timedOut: true }))).toEqual({
      warnings: ['PreToolUse hook `check.sh` did not finish within 60s and was stopped; the step went on'],
    });
  });
});

describe('combineVerdicts', () => {
  it('any block blocks (reasons joined); deny beats ask beats allow', () => {
    expect(
      combineVerdicts([
        { permission: 'allow', warnings: [] },
        { permission: 'ask', reason: 'look', warnings: ['w'] },
      ]),
    ).toEqual({ permission: 'ask', reason: 'look', warnings: ['w'] });
    expect(
      combineVerdicts([
        { block: 'a', warnings: [] },
        { permission: 'allow', warnings: [] },
        { block: 'b', permission: 'deny', reason: 'b', warnings: [] },
      ]),
    ).toEqual({
      block: 'a\nb',
      permission: 'deny',
      reason: 'b',
      warnings: [],
    });
    expect(combineVerdicts([])).toEqual({ warnings: [] });
  });
});
