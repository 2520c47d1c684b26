import { describe, expect, it } from 'vitest';
import { compileMatcher } from '../../src/hooks/matcher.js';

describe('compileMatcher', () => {
  it('absent, empty and * match everything', () => {
    for (const m of [undefined, '', '*', '  ']) expect(compileMatcher(m)('anything')).toBe(true);
  });

  it("plain names match exactly, Claude Code's names meaning Keen's tools", () => {
    const m = compileMatcher('Bash|Edit|read_file');
    expect(['bash', 'edit_file', 'read_file'].map(m)).toEqual([true, true, true]);
    expect(['write_file', 'bash2', 'grep'].map(m)).toEqual([false, false, false]);
  });

  it('a * in a plain name is a wildcard: mcp__* and mcp__github__*', () => {
    expect(compileMatcher('mcp__*')('mcp__github__create_issue')).toBe(true);
    expect(compileMatcher('mcp__*')('bash')).toBe(false);
    expect(compileMatcher('mcp__github__*')('mcp__github__create_issue')).toBe(true);
    expect(compileMatcher('mcp__github__*')('mcp__jira__create_issue')).toBe(false);
  });

  it('anything else is a regular expression over the whole name (Keen or Claude Code spelling)', () => {
    const m = compileMatcher('mcp__.*__write.*|Web.*');
    expect(m('mcp__fs__write_file')).toBe(true);
    expect(m('web_fetch')).toBe(true);
    expect(m('mcp__fs__read_file')).toBe(false);
    expect(compileMatcher('Edit.*')('edit_file')).toBe(true);
    expect(compileMatcher('bas.')('bash')).toBe(true);
    expect(compileMatcher('as.')('bash')).toBe(false);
  });

  it('a broken regular expression is one error naming it', () => {
    expect(() => compileMatcher('Bash(')).toThrow('the matcher "Bash(" is not a valid regular expression');
  });
});
