/**
 * MCP tools over the limits are deferred behind mcp_tool_search: 2,000 tools (their definitions
 * far past 10% of the window) against the Anthropic fake, 200 (past OpenAI's cap of 128) against
 * the Chat Completions fake. The first request offers the built-ins and the search tool; the
 * tool the model finds joins the next request and runs; one warning line says so; a resumed
 * session still offers it. Under the limits every tool is offered as before.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIChatFake } from '../fakes/openai-chat-fake.js';
import type { RecordedRequest } from '../fakes/script.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { errorLines, toolResults, useCliRig } from './cli-fixtures.js';
import { runKeen } from './harness.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';
import { writeUserConfig } from './mcp-fixtures.js';

const { rig, workspace } = useCliRig();
const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/mcp/many-tools-server.mjs');
const WEATHER = 'mcp__many__weather_forecast';

function configure(ws: Workspace, tools: number): void {
  writeUserConfig(ws.home, {
    mcp: { startupTimeoutMs: 60_000 },
    mcpServers: { many: { command: process.execPath, args: [FIXTURE], env: { MANY_TOOLS: String(tools) } } },
  });
}

const anthropicTools = (req: RecordedRequest): string[] => ((req.body.tools ?? []) as { name: string }[]).map((t) => t.name);
const chatTools = (req: RecordedRequest): string[] => ((req.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
const deferredLines = (stderr: string): string[] => stderr.split('\n').filter((l) => l.includes('deferred behind mcp_tool_search'));

describe('2,000 MCP tools against Anthropic', () => {
  it('offers the search tool first, then the tool it found, which runs; a resumed session keeps it', async () => {
    const ws = workspace();
    configure(ws, 2000);
    const from = rig.fake.requests.length;
    rig.fake.enqueue(
      { steps: [{ toolCall: { name: 'mcp_tool_search', args: { query: 'weather forecast for a city' } } }] },
      { steps: [{ toolCall: { name: WEATHER, args: { city: 'Paris' } } }] },
      { steps: [{ text: 'sunny' }] },
    );
    const r = await rig.keen(ws, ['run', 'weather in Paris?']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('sunny');
    const lines = deferredLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^keen: warning: 2000 MCP tools deferred behind mcp_tool_search: .*mcp\.deferToolsShare 0\.1/);
    expect(errorLines(r.stderr).filter((l) => !lines.includes(l))).toEqual([]);

    const [first, second, third] = rig.since(from);
    const firstTools = anthropicTools(first);
    expect(firstTools).toEqual(expect.arrayContaining(['bash', 'read_file', 'mcp_tool_search']));
    expect(firstTools.filter((n) => n.startsWith('mcp__'))).toEqual([]);
    expect(JSON.stringify(first.body.tools).length).toBeLessThan(100_000);
    expect(toolResults(second)[0].text).toContain(WEATHER);
    expect(anthropicTools(second)).toContain(WEATHER);
    expect(anthropicTools(second).filter((n) => n.startsWith('mcp__'))).toEqual([WEATHER]);
    expect(toolResults(third).at(-1)).toEqual({ text: 'weather_forecast ran with {"city":"Paris"}', isError: false });

    const resumedFrom = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'still sunny' }] });
    const again = await rig.keen(ws, ['run', '--continue', 'and tomorrow?']);
    expect(again.code).toBe(0);
    expect(deferredLines(again.stderr)).toHaveLength(1);
    const resumedTools = anthropicTools(rig.since(resumedFrom)[0]);
    expect(resumedTools).toEqual(expect.arrayContaining(['mcp_tool_search', WEATHER]));
    expect(resumedTools.filter((n) => n.startsWith('mcp__'))).toEqual([WEATHER]);
  });

  it('offers every tool, and no search tool, under the limits', async () => {
    const ws = workspace();
    configure(ws, 20);
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });
    const r = await rig.keen(ws, ['run', 'hi']);
    expect(r.code).toBe(0);
    expect(deferredLines(r.stderr)).toEqual([]);
    const tools = anthropicTools(rig.since(from)[0]);
    expect(tools.filter((n) => n.startsWith('mcp__'))).toHaveLength(20);
    expect(tools).not.toContain('mcp_tool_search');
  });
});

describe('200 MCP tools against OpenAI Chat Completions (cap 128)', () => {
  let fake: ScriptedServer;
  const workspaces: Workspace[] = [];
  beforeAll(async () => {
    fake = await startOpenAIChatFake();
  });
  afterAll(async () => {
    await fake.close();
    for (const ws of workspaces) ws.cleanup();
  });

  it('stays under the cap and loads the tool the search found', async () => {
    const ws = tempWorkspace();
    workspaces.push(ws);
    configure(ws, 200);
    fake.enqueue(
      { steps: [{ toolCall: { name: 'mcp_tool_search', args: { query: 'select:weather_forecast' } } }] },
      { steps: [{ toolCall: { name: WEATHER, args: { city: 'Oslo' } } }] },
      { steps: [{ text: 'cold' }] },
    );
    const env = { OPENAI_API_KEY: 'sk-test-defer', OPENAI_BASE_URL: `${fake.url}/v1` };
    const r = await runKeen(['run', '--provider', 'openai', 'weather in Oslo?'], { cwd: ws.cwd, home: ws.home, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('cold');
    const lines = deferredLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("pass the provider's cap of 128");
    const [first, second] = fake.requests;
    expect(chatTools(first).length).toBeLessThanOrEqual(128);
    expect(chatTools(first)).toContain('mcp_tool_search');
    expect(chatTools(first).filter((n) => n.startsWith('mcp__'))).toEqual([]);
    expect(chatTools(second).filter((n) => n.startsWith('mcp__'))).toEqual([WEATHER]);
    const last = JSON.stringify(fake.requests[2].body.messages.at(-1));
    expect(last).toContain('weather_forecast ran with');
  });
});
