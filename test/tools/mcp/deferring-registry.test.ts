/**
 * The MCP-aware registry with deferral, over a real stdio server offering many tools: what a
 * request offers, the notice, the cap, and a deferred tool called by name.
 */
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LoadedTools } from '../../../src/tools/mcp/loaded-tools.js';
import { McpManager } from '../../../src/tools/mcp/manager.js';
import { createMcpAwareRegistry } from '../../../src/tools/mcp/registry.js';
import type { PermissionGate } from '../../../src/tools/types.js';

const FIXTURE = path.resolve(import.meta.dirname, '../../fixtures/mcp/many-tools-server.mjs');
const allowAll: PermissionGate = { check: async () => 'allow' };
const ctx = () => ({ cwd: os.tmpdir(), signal: new AbortController().signal, permissions: allowAll });

const managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});

async function many(count: number): Promise<{ m: McpManager; warnings: string[] }> {
  const warnings: string[] = [];
  const spec = { name: 'many', file: 'test', transport: 'stdio' as const, command: process.execPath, args: [FIXTURE], env: { MANY_TOOLS: String(count) }, cwd: os.tmpdir() };
  const m = new McpManager({ servers: [spec], env: process.env, warn: (l) => warnings.push(l) });
  managers.push(m);
  await m.settled();
  return { m, warnings };
}

const mcpNames = (names: string[]) => names.filter((n) => n.startsWith('mcp__'));

describe('deferring MCP tools', () => {
  it('offers the search tool, loads a tool called by name, and says so once', async () => {
    const { m, warnings } = await many(300);
    const deferral = { window: 200_000, provider: 'anthropic', loaded: new LoadedTools() };
    const registry = createMcpAwareRegistry([], m, deferral);
    const second = createMcpAwareRegistry([], m, deferral);
    expect(registry.definitions().map((d) => d.name)).toEqual(['mcp_tool_search']);
    second.definitions();
    expect(warnings).toEqual([expect.stringMatching(/^300 MCP tools deferred behind mcp_tool_search: .*mcp\.deferToolsShare 0\.1/)]);

    const ran = await registry.execute({ id: '1', name: 'mcp__many__ledger_query_0007', args: '{"owner":"ann"}' }, ctx());
    expect(ran.content).toBe('ledger_query_0007 ran with {"owner":"ann"}');
    expect(mcpNames(registry.definitions().map((d) => d.name))).toEqual(['mcp__many__ledger_query_0007']);
    expect(mcpNames(second.definitions().map((d) => d.name))).toEqual(['mcp__many__ledger_query_0007']);
  });

  it('keeps a capped provider under its cap, the latest loaded kept', async () => {
    const { m } = await many(200);
    const loaded = new LoadedTools();
    const registry = createMcpAwareRegistry([], m, { window: 400_000, provider: 'openai', loaded });
    const all = Array.from({ length: 199 }, (_, i) => `mcp__many__ledger_query_${String(i).padStart(4, '0')}`).filter((n) => n !== 'mcp__many__ledger_query_0100');
    loaded.add(all);
    const offered = registry.definitions().map((d) => d.name);
    expect(offered).toHaveLength(128);
    expect(offered[0]).toBe('mcp_tool_search');
    expect(offered.at(-1)).toBe(all.at(-1));
  });

  it('offers every tool under the limits', async () => {
    const { m, warnings } = await many(30);
    const registry = createMcpAwareRegistry([], m, { window: 400_000, provider: 'openai', loaded: new LoadedTools() });
    expect(mcpNames(registry.definitions().map((d) => d.name))).toHaveLength(30);
    expect(warnings).toEqual([]);
  });
});
