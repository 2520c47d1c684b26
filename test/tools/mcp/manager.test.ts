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
const HOSTILE = path.resolve(import.meta.dirname, '../../fixtures/mcp/hostile-server.mjs');
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

/** Resolves once `done()` holds; what it waits for happens in another process, so no deadline but the test's. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 20));
}

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
    await until(() => m.version !== before);

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
    const files = (name: string) => ({ DYN_CANCEL_FILE: path.join(dir, `${name}.cancelled`), DYN_CALLED_FILE: path.join(dir, `${name}.called`) });
    const lines = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0);
    const quick = manager([stdio('dyn', [FIXTURE], files('quick'))], { toolTimeoutMs: 300 }).m;
    // With the default timeout, far beyond the test's, only the abort can tell this server.
    const patient = manager([stdio('dyn', [FIXTURE], files('patient'))]).m;
    await Promise.all([quick.settled(), patient.settled()]);

    const timedOut = await quick.callTool('dyn', 'wait_for_cancel', {}, new AbortController().signal).catch((e: Error) => e.message);
    expect(timedOut).toBe('MCP tool wait_for_cancel on server "dyn" timed out after 300 ms (mcp.toolTimeoutMs); the call was cancelled.');
    await until(() => lines(files('quick').DYN_CANCEL_FILE) > 0);
    expect(lines(files('quick').DYN_CANCEL_FILE)).toBe(1);

    const ac = new AbortController();
    const pending = patient.callTool('dyn', 'wait_for_cancel', {}, ac.signal).catch((e: Error) => e.message);
    // Aborted once the server runs the call, so the cancellation has a call to reach.
    await until(() => lines(files('patient').DYN_CALLED_FILE) > 0);
    ac.abort();
    expect(await pending).toBe('cancelled');
    await until(() => lines(files('patient').DYN_CANCEL_FILE) > 0);
    expect(lines(files('patient').DYN_CANCEL_FILE)).toBe(1);
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
    await until(() => !started.some(alive));
  });

  it('answers a server\'s sampling, roots and elicitation requests with "method not found"', async () => {
    const { m } = manager([stdio('evil', [HOSTILE])]);
    await m.settled();
    const out = await m.callTool('evil', 'ask_client', {}, new AbortController().signal);
    const answers = JSON.parse(out.content as string) as Record<string, { error?: string; result?: unknown }>;
    // No model call on a server's say-so, no workspace path list, no question to the user.
    for (const method of ['sampling', 'roots', 'elicitation']) {
      expect(answers[method].result).toBeUndefined();
      expect(answers[method].error).toMatch(/-32601|Method not found/);
    }
  });

  it('a server whose tool list never ends is failed after a bounded number of pages', async () => {
    const { m, warnings } = manager([stdio('endless', [HOSTILE], { HOSTILE_ENDLESS: '1' })]);
    await m.settled();
    expect(m.status()[0]).toMatchObject({ state: 'failed', tools: 0 });
    expect(warnings).toEqual([expect.stringMatching(/^MCP server "endless" failed to start: its tools\/list has more than \d+ pages$/)]);
  });

  it('a server that sends a message without end is stopped once it passes the limit, and Keen goes on', async () => {
    const { m, warnings } = manager([stdio('flood', [HOSTILE], { HOSTILE_FLOOD: '1' })]);
    await m.settled();
    const out = await m.callTool('flood', 'ask_client', {}, new AbortController().signal).catch((e: Error) => e.message);
    expect(out).toBe('MCP server "flood" stopped during the call: the server stopped (it sent a message over 10 MB).');
    expect(warnings).toEqual(['MCP server "flood" stopped (it sent a message over 10 MB); it is restarted on its next call']);
  });

  it('tools whose names collide once cleaned all get distinct names providers accept', async () => {
    const { m } = manager([stdio('twins', [HOSTILE], { HOSTILE_TWINS: '1200' })]);
    await m.settled();
    const names = m.tools().map((t) => t.name);
    expect(names).toHaveLength(1201);
    expect(new Set(names).size).toBe(1201);
    expect(names.filter((n) => !/^[A-Za-z0-9_-]{1,64}$/.test(n))).toEqual([]);
  });
});
