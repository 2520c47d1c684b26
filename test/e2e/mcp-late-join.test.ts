/**
 * A slow MCP server is not lost to a one-shot run: a server ready after mcp.startupTimeoutMs
 * joins the next model request of the same turn, not only the next turn.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorLines, useCliRig } from './cli-fixtures.js';
import { writeUserConfig } from './mcp-fixtures.js';

const { rig, workspace } = useCliRig();
const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/mcp/dynamic-server.mjs');

const toolNames = (index: number): string[] => ((rig.fake.requests[index].body.tools ?? []) as { name: string }[]).map((t) => t.name);

describe('a late MCP server in keen run', () => {
  it('starts after the first request and is offered in the second one of the same turn', async () => {
    const ws = workspace();
    const go = path.join(ws.cwd, 'go');
    const ready = path.join(ws.cwd, 'ready');
    writeUserConfig(ws.home, {
      mcp: { startupTimeoutMs: 100 },
      mcpServers: { slow: { command: process.execPath, args: [FIXTURE], env: { DYN_GO_FILE: go, DYN_READY_FILE: ready } } },
    });
    const from = rig.fake.requests.length;
    // The server starts only when the first request's bash call lets it, and that call ends once
    // the server has answered Keen's last list request (plus a margin for Keen to read it).
    const command = `touch ${go}; until [ -e ${ready} ]; do sleep 0.05; done; sleep 0.5; echo started`;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'bash', args: { command } } }] }, { steps: [{ text: 'done' }] });
    const r = await rig.keen(ws, ['run', '--yolo', 'start the server']);
    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.code).toBe(0);
    expect(toolNames(from)).not.toContain('mcp__slow__add_tool');
    expect(toolNames(from + 1)).toEqual(expect.arrayContaining(['bash', 'mcp__slow__add_tool', 'mcp__slow__wait_for_cancel']));
  });
});
