/**
 * McpManager against real stdio servers: the SDK-built fixture (tool list changes, a server that
 * starts late), the many-tools fixture (pagination) and server-everything (prompts, resources).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McpManager } from '../../../src/tools/mcp/manager.js';
import { createMcpAwareRegistry } from '../../../src/tools/mcp/registry.js';
import type { ServerSpec } from '../../../src/tools/mcp/servers.js';
import type { PermissionGate } from '../../../src/tools/types.js';
import { alive } from '../../kit/processes.js';
import { tempDir } from '../../kit/temp-dir.js';

const FIXTURE = path.resolve(import.meta.dirname, '../../fixtures/mcp/dynamic-server.mjs');
const MANY = path.resolve(import.meta.dirname, '../../fixtures/mcp/many-tools-server.mjs');
const EVERYTHING = path.resolve(import.meta.dirname, '../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');

const managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});

function manager(servers: ServerSpec[], settings = {}): { m: McpManager; warnings: string[] } {
  const warnings: string[] = [];
  const m = new McpManager({ servers, settings, env: process.env, warn: (l) => warnings.push(l) });
  managers.push(m);
  return { m, warnings };
}

const stdio = (name: string, args: string[], env: Record<string, string> = {}): ServerSpec => ({
  name,
  file: 'test',
  transport: 'stdio',
  command: process.execPath,
  args,
  env,
  cwd: os.tmpdir(),
});

const allowAll: PermissionGate = { check: async () => 'allow' };
const ctx = () => ({ cwd: os.tmpdir(), signal: new AbortController().signal, permissions: allowAll });

describe('McpManager', () => {
  it('refreshes the tool list on notifications/tools/list_changed', async () => {
    const { m } = manager([stdio('dyn', [FIXTURE])]);
    const registry = createMcpAwareRegistry([], m);
    await m.settled();
    expect(registry.definitions().map((d) => d.name)).toEqual(['mcp__dyn__add_tool', 'mcp__dyn__wait_for_cancel']);
    const before = m.version;

    const msg = await registry.execute({ id: '1', name: 'mcp__dyn__add_tool', args: '{}' }, ctx());
    expect(msg.content).toBe('registered');
    const end = Date.now() + 5_000;
    while (m.version === before && Date.now() < end) await new Promise((r) => setTimeout(r, 20));

    expect(registry.definitions().map((d) => d.name)).toEqual(['mcp__dyn__add_tool', 'mcp__dyn__wait_for_cancel', 'mcp__dyn__added']);
    expect((await registry.execute({ id: '2', name: 'mcp__dyn__added', args: '{}' }, ctx())).content).toBe('added ran');
  });

  it('waits at most startupTimeoutMs for a slow server, which joins the tool list once ready', async () => {
    const dir = tempDir('keen-mcp-');
    const go = path.join(dir, 'go');
    const { m } = manager([stdio('slow', [FIXTURE], { DYN_GO_FILE: go })], { startupTimeoutMs: 200 });
    const registry = createMcpAwareRegistry([], m);
    m.start();
    await m.waitForStartup();
    // The server is still waiting for its go file: the first request goes without its tools.
    expect(registry.definitions()).toEqual([]);
    expect(m.status()).toEqual([{ name: 'slow', transport: 'stdio', state: 'starting', tools: 0, prompts: 0 }]);

    fs.writeFileSync(go, '');
    await m.settled();
    expect(registry.definitions().map((d) => d.name)).toEqual(['mcp__slow__add_tool', 'mcp__slow__wait_for_cancel']);
    expect(m.status()[0]).toMatchObject({ state: 'ready', tools: 2, prompts: 1 });
  });

  it('a cancelled call and a timed-out call send the MCP cancellation to the server', async () => {
    const dir = tempDir('keen-mcp-');
    const cancelFile = path.join(dir, 'cancelled');
    const { m } = manager([stdio('dyn', [FIXTURE], { DYN_CANCEL_FILE: cancelFile })], { toolTimeoutMs: 300 });
    await m.settled();
    const cancels = () => (fs.existsSync(cancelFile) ? fs.readFileSync(cancelFile, 'utf8').split('\n').filter(Boolean).length : 0);
    const waitCancels = async (n: number) => {
      const end = Date.now() + 5_000;
      while (cancels() < n && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    };

    const timedOut = await m.callTool('dyn', 'wait_for_cancel', {}, new AbortController().signal).catch((e: Error) => e.message);
    expect(timedOut).toBe('MCP tool wait_for_cancel on server "dyn" timed out after 300 ms (mcp.toolTimeoutMs); the call was cancelled.');
    await waitCancels(1);
    expect(cancels()).toBe(1);

    const ac = new AbortController();
    const pending = m.callTool('dyn', 'wait_for_cancel', {}, ac.signal).catch((e: Error) => e.message);
    setTimeout(() => ac.abort(), 50);
    expect(await pending).toBe('cancelled');
    await waitCancels(2);
    expect(cancels()).toBe(2);
  });

  it('offers prompts as slash commands and reads resources', async () => {
    const { m } = manager([stdio('dyn', [FIXTURE]), stdio('ev', [EVERYTHING, 'stdio'])]);
    await m.settled();
    const commands = m.promptCommands().map((p) => p.command);
    expect(commands).toContain('mcp__dyn__review');
    expect(commands).toContain('mcp__ev__simple-prompt');
    const prompt = await m.getPrompt('dyn', 'review', {});
    expect(prompt.messages[0].content).toEqual({ type: 'text', text: 'Please review the code.' });
    const resource = await m.readResource('ev', 'demo://resource/static/document/architecture.md');
    expect(JSON.stringify(resource.contents)).toContain('architecture');
  });

  it('lists every page of a server that paginates its tools and prompts', async () => {
    const { m } = manager([stdio('paged', [MANY], { MANY_TOOLS: '25', MANY_PAGE: '10', MANY_PROMPTS: '12' })]);
    const registry = createMcpAwareRegistry([], m);
    await m.settled();
    expect(m.status()[0]).toMatchObject({ state: 'ready', tools: 25, prompts: 12 });
    const names = registry.definitions().map((d) => d.name);
    expect(names).toHaveLength(25);
    expect(names).toContain('mcp__paged__ledger_query_0024');
    expect(m.promptCommands().map((p) => p.command)).toContain('mcp__paged__prompt_11');
  });

  it('close() ends each stdio server and what it started (its process group)', async () => {
    const dir = tempDir('keen-mcp-');
    const pids = path.join(dir, 'pids');
    // A shell that starts a background child, then runs the server: both must go.
    const script = `sleep 300 & echo $! >> "${pids}"; echo $$ >> "${pids}"; exec "${process.execPath}" "${FIXTURE}"`;
    const { m } = manager([{ ...stdio('grp', []), command: 'sh', args: ['-c', script] } as ServerSpec]);
    await m.settled();
    expect(m.status()[0].state).toBe('ready');
    const started = fs.readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number);
    expect(started).toHaveLength(2);
    await m.close();
    const end = Date.now() + 3_000;
    while (started.some(alive) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    expect(started.filter(alive)).toEqual([]);
  });
});
