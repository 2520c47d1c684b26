import { describe, expect, it } from 'vitest';
import { planModeHolder } from '../../src/tools/plan-mode-registry.js';
import { splitRuleList } from '../../src/tools/permissions/policy.js';
import { parseRule } from '../../src/tools/permissions/rules.js';
import { canonicalTool, unknownToolReason } from '../../src/tools/permissions/tool-names.js';

describe('rule lists', () => {
  it('split on commas and blanks outside parentheses and quotes', () => {
    expect(splitRuleList(['Bash(git:*) Read', 'bash(npm test),read_file(src/**)'])).toEqual(['Bash(git:*)', 'Read', 'bash(npm test)', 'read_file(src/**)']);
    expect(splitRuleList(['bash(echo "a, b)") , grep'])).toEqual(['bash(echo "a, b)")', 'grep']);
  });
});

describe('tool names', () => {
  it("map Claude Code's names and keep Keen's", () => {
    expect(['Bash', 'Read', 'Edit', 'MultiEdit', 'Write', 'LS', 'Glob', 'Grep', 'WebFetch', 'bash'].map(canonicalTool)).toEqual([
      'bash',
      'read_file',
      'edit_file',
      'edit_file',
      'write_file',
      'list_dir',
      'glob',
      'grep',
      'web_fetch',
      'bash',
    ]);
    const read = parseRule('Read(./src/**)', '/home/u');
    expect(read.text).toBe('read_file(./src/**)');
    expect(read.kind === 'path' && read.glob).toBe('src/**');
    expect(parseRule('Bash(git:*)', '/home/u').text).toBe('bash(git:*)');
  });

  it('a name that is no tool has a reason with the close name', () => {
    const known = { mcpServers: ['github'] };
    expect(unknownToolReason('bassh', known)).toMatch(/^no tool is named "bassh" \(did you mean bash\?\)/);
    expect(unknownToolReason('BASH', known)).toMatch(/did you mean bash\?/);
    expect(unknownToolReason('mcp__github__anything', known)).toBeUndefined();
    expect(unknownToolReason('mcp__github', known)).toBeUndefined();
    expect(unknownToolReason('mcp__*', known)).toBeUndefined();
    expect(unknownToolReason('*_file', known)).toBeUndefined();
    expect(unknownToolReason('mcp__gh__x', known)).toBe('no MCP server "gh" is configured (configured: github)');
    // A server name ending in "_": its tools' part never starts with "_" (src/tools/mcp/names.ts).
    expect(unknownToolReason('mcp__gh___x', { mcpServers: ['gh_'] })).toBeUndefined();
    expect(unknownToolReason('mcp__gh___x', { mcpServers: ['gh'] })).toBe('no MCP server "gh_" is configured (configured: gh) (did you mean gh?)');
    expect(() => parseRule('WebSearch', '/h', known)).toThrow(/no tool is named "WebSearch"/);
  });
});

describe('one plan mode', () => {
  it('the agent mode follows the permission mode and /mode build leaves plan', () => {
    const policy = { mode: 'plan' as 'default' | 'acceptEdits' | 'plan' | 'bypassPermissions' };
    const mode = planModeHolder(policy);
    expect(mode.get()).toBe('plan');
    mode.set('build');
    expect([mode.get(), policy.mode]).toEqual(['build', 'default']);
    policy.mode = 'bypassPermissions';
    mode.set('plan');
    expect([mode.get(), policy.mode]).toEqual(['plan', 'bypassPermissions']);
    policy.mode = 'plan';
    expect(mode.get()).toBe('plan');
    policy.mode = 'default'; // Shift+Tab off plan ends plan mode
    expect(mode.get()).toBe('build');
  });
});
