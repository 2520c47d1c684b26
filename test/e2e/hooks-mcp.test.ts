/**
 * A `PreToolUse` hook with the matcher `mcp__*` around real MCP servers (the reference
 * server-filesystem and server-everything over stdio): the spawned bundle runs the hook for every
 * MCP tool call and for no built-in one, a block (exit 2) keeps the server's tool from running,
 * and the model reads the hook's reason as the tool result.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorLines, toolResults, useCliRig } from './cli-fixtures.js';
import { everything, filesystem, writeUserConfig } from './mcp-fixtures.js';

const { rig, workspace } = useCliRig();

describe('PreToolUse with matcher mcp__*', () => {
  it('blocks the MCP tools (the write never happens), lets built-in tools run, and the model sees the reason', async () => {
    const ws = workspace({ 'notes.txt': 'built-in tools still run\n' });
    const root = path.dirname(ws.cwd);
    const inputs = path.join(root, 'mcp-hook-inputs.jsonl');
    const hook = path.join(root, 'no-mcp.sh');
    fs.writeFileSync(hook, `#!/bin/sh\ncat >> '${inputs}'\necho >> '${inputs}'\necho "MCP tools need a review first: ask the team" >&2\nexit 2\n`);
    writeUserConfig(ws.home, {
      mcpServers: { fs: filesystem(ws.cwd), everything: everything() },
      hooks: { PreToolUse: [{ matcher: 'mcp__*', hooks: [{ type: 'command', command: `sh '${hook}'` }] }] },
    });
    const target = path.join(ws.cwd, 'written-by-mcp.txt');
    const from = rig.fake.requests.length;
    rig.fake.enqueue(
      {
        steps: [
          { toolCall: { name: 'mcp__fs__write_file', args: { path: target, content: 'should not exist' } } },
          { toolCall: { name: 'mcp__everything__echo', args: { message: 'hello' } } },
          { toolCall: { name: 'read_file', args: { path: 'notes.txt' } } },
        ],
      },
      { steps: [{ text: 'done' }] },
    );

    const r = await rig.keen(ws, ['run', '--yolo', 'write a file with the MCP server']);

    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.code).toBe(0);
    // The servers' tools were offered: the hook, not a missing tool, is what stopped them.
    const offered = (rig.fake.requests[from].body.tools as { name: string }[]).map((t) => t.name);
    expect(offered).toEqual(expect.arrayContaining(['mcp__fs__write_file', 'mcp__everything__echo', 'read_file']));
    expect(fs.existsSync(target)).toBe(false);
    const results = toolResults(rig.fake.requests[from + 1]);
    expect(results).toEqual([
      { text: 'Blocked by a PreToolUse hook: MCP tools need a review first: ask the team', isError: true },
      { text: 'Blocked by a PreToolUse hook: MCP tools need a review first: ask the team', isError: true },
      { text: expect.stringContaining('built-in tools still run'), isError: false },
    ]);
    // The hook ran once per MCP call, with the call on stdin, and never for read_file.
    const seen = fs
      .readFileSync(inputs, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l));
    expect(seen).toEqual([
      expect.objectContaining({ hook_event_name: 'PreToolUse', tool_name: 'mcp__fs__write_file', tool_input: { path: target, content: 'should not exist' } }),
      expect.objectContaining({ hook_event_name: 'PreToolUse', tool_name: 'mcp__everything__echo', tool_input: { message: 'hello' } }),
    ]);
  }, 60_000);
});
