import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/core/provider.js';
import { decideDeferral, providerToolCap } from '../../../src/tools/mcp/deferral.js';
import { LOADED_TOOLS_FILE, LoadedTools } from '../../../src/tools/mcp/loaded-tools.js';
import { rankTools } from '../../../src/tools/mcp/tool-search.js';
import { tempDir } from '../../kit/temp-dir.js';

const base = { builtins: 15, mcpTools: 10, mcpTokens: 1_000, window: 200_000, share: 0.1 };

describe('decideDeferral', () => {
  it('offers every tool under the share and the cap', () => {
    expect(decideDeferral(base)).toEqual({ defer: false });
    expect(decideDeferral({ ...base, mcpTokens: 20_000 })).toEqual({ defer: false });
    expect(decideDeferral({ ...base, cap: 25 })).toEqual({ defer: false });
  });

  it('defers past the share of the window, or past the cap', () => {
    expect(decideDeferral({ ...base, mcpTokens: 20_001 })).toMatchObject({ defer: true, reason: expect.stringContaining('mcp.deferToolsShare 0.1') });
    expect(decideDeferral({ ...base, cap: 24 })).toMatchObject({ defer: true, reason: "25 tools pass the provider's cap of 24" });
    expect(decideDeferral({ ...base, share: 0 })).toMatchObject({ defer: true });
  });

  it('has nothing to defer without MCP tools', () => {
    expect(decideDeferral({ ...base, mcpTools: 0, mcpTokens: 0, share: 0 })).toEqual({ defer: false });
  });

  it('knows the capped providers', () => {
    expect(providerToolCap('openai')).toBe(128);
    expect(providerToolCap('genkit')).toBe(512);
    expect(providerToolCap('anthropic')).toBeUndefined();
  });
});

const def = (name: string, description: string): ToolDefinition => ({ name, description, input_schema: { type: 'object' } });

describe('rankTools', () => {
  const defs = [
    def('mcp__gh__create_issue', 'Create an issue in a repository.'),
    def('mcp__gh__list_issues', 'List the issues of a repository.'),
    def('mcp__db__query', 'Run a SQL query against the database.'),
  ];

  it('ranks name matches above description matches and drops weak ones', () => {
    expect(rankTools(defs, 'create issue', 5).map((d) => d.name)).toEqual(['mcp__gh__create_issue', 'mcp__gh__list_issues']);
    expect(rankTools(defs, 'sql', 5).map((d) => d.name)).toEqual(['mcp__db__query']);
    expect(rankTools(defs, 'a', 5)).toEqual([]);
  });

  it('selects exact names, full or the server’s own', () => {
    expect(rankTools(defs, 'select:query, mcp__gh__list_issues', 5).map((d) => d.name)).toEqual(['mcp__db__query', 'mcp__gh__list_issues']);
  });

  it('keeps to the limit', () => {
    expect(rankTools(defs, 'repository', 1)).toHaveLength(1);
  });
});

describe('LoadedTools', () => {
  it('keeps the loaded names in the session folder for the next open', () => {
    const dir = tempDir('keen-loaded-');
    try {
      const first = new LoadedTools(path.join(dir, 'session'));
      expect(first.add(['a', 'b', 'a'])).toBe(2);
      expect(first.add(['b'])).toBe(0);
      expect(new LoadedTools(path.join(dir, 'session')).list()).toEqual(['a', 'b']);
      fs.writeFileSync(path.join(dir, 'session', LOADED_TOOLS_FILE), 'not json');
      expect(new LoadedTools(path.join(dir, 'session')).list()).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
