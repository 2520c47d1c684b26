/** The pure decisions behind the safe keys: the prompt's typed-ahead guard and the Shift+Tab cycle. */
import { describe, expect, it } from 'vitest';
import { replNextMode } from '../../src/repl/input/mode-cycle.js';
import { PromptGuard } from '../../src/repl/input/prompt-guard.js';

describe('PromptGuard', () => {
  it('holds keys until the keyboard has been quiet for the guard, each held key restarting it', () => {
    const g = new PromptGuard(400);
    expect(g.holds(0)).toBe(false); // no prompt open
    g.open(1000);
    expect(g.holds(1100)).toBe(true);
    expect(g.holds(1450)).toBe(true); // 350 after the last key
    expect(g.holds(1800)).toBe(true); // still typing
    expect(g.holds(2200)).toBe(false); // quiet for 400: a deliberate answer
    expect(g.holds(2250)).toBe(false); // once released, the prompt keeps the keys
    g.close();
    expect(g.holds(2260)).toBe(false);
  });

  it('a guard of 0 holds nothing', () => {
    const g = new PromptGuard(0);
    g.open(5);
    expect(g.holds(5)).toBe(false);
  });
});

describe('replNextMode', () => {
  it('skips bypassPermissions unless the session was started in it', () => {
    expect(replNextMode('default', false)).toBe('acceptEdits');
    expect(replNextMode('acceptEdits', false)).toBe('plan');
    expect(replNextMode('plan', false)).toBe('default');
    expect(replNextMode('bypassPermissions', false)).toBe('default');
    expect(replNextMode('plan', true)).toBe('bypassPermissions');
    expect(replNextMode('bypassPermissions', true)).toBe('default');
  });
});
