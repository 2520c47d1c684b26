/**
 * Deferred MCP tools in the REPL (in-process, real session, a stdio server offering 2,000 tools):
 * one warning notice says so, once over several turns; the first request offers the search tool,
 * and the tool it found joins the next request.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempWorkspace } from '../kit/temp-dir.js';
import { startHarness, type ReplHarness } from './harness.js';

const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/mcp/many-tools-server.mjs');
const NOTICE = '2000 MCP tools deferred behind mcp_tool_search';

let h: ReplHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const toolNames = (body: { tools?: { name: string }[] }): string[] => (body.tools ?? []).map((t) => t.name);

describe('deferred MCP tools in the REPL', () => {
  it('says so in one notice and loads what the search finds', async () => {
    const ws = tempWorkspace();
    writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ mcp: { startupTimeoutMs: 60_000 }, mcpServers: { many: { command: process.execPath, args: [FIXTURE] } } }));
    h = await startHarness({ workspace: ws });
    h.fake.enqueue(
      { steps: [{ toolCall: { name: 'mcp_tool_search', args: { query: 'weather forecast' } } }] },
      { steps: [{ text: 'found it' }] },
      { steps: [{ text: 'second answer' }] },
    );
    h.send('find the weather tool');
    await h.waitFor('found it');
    h.send('again');
    const frame = await h.waitFor('second answer');
    expect(frame.split(NOTICE)).toHaveLength(2);
    const [first, second, third] = h.fake.requests;
    expect(toolNames(first.body)).toContain('mcp_tool_search');
    expect(toolNames(first.body).filter((n) => n.startsWith('mcp__'))).toEqual([]);
    expect(toolNames(second.body).filter((n) => n.startsWith('mcp__'))).toEqual(['mcp__many__weather_forecast']);
    expect(toolNames(third.body).filter((n) => n.startsWith('mcp__'))).toEqual(['mcp__many__weather_forecast']);
  });
});
