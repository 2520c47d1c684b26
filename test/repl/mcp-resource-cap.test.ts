/**
 * `@server:uri` and `/mcp__server__prompt` against a server whose resource and prompt are huge:
 * each is capped like a file mention, since the message stays in every later request of the session.
 */
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ATTACHMENT_MAX_BYTES } from '../../src/repl/input/attachment-limit.js';
import { expandMcpResources, mcpPromptMessage } from '../../src/repl/mcp-commands.js';
import { McpManager } from '../../src/tools/mcp/manager.js';

const HOSTILE = path.resolve(import.meta.dirname, '../fixtures/mcp/hostile-server.mjs');

let manager: McpManager | undefined;
afterEach(async () => {
  await manager?.close();
});

function start(chars: number): McpManager {
  manager = new McpManager({
    servers: [{ name: 'big', file: 'test', transport: 'stdio', command: process.execPath, args: [HOSTILE], env: { HOSTILE_RESOURCE_CHARS: String(chars) }, cwd: os.tmpdir() }],
    env: process.env,
    warn: () => undefined,
  });
  return manager;
}

describe('@server:uri attachments', () => {
  it('a resource longer than a file mention may be is cut, and the message says so', async () => {
    const m = start(5_000_000);
    await m.settled();
    const out = await expandMcpResources('read @big:mem://huge', m);
    expect(out.attached).toEqual(['big:mem://huge']);
    expect(out.text.length).toBeLessThan(ATTACHMENT_MAX_BYTES + 1_000);
    expect(out.text).toContain(`[truncated: the resource has 5,000,000 characters; only the first ${ATTACHMENT_MAX_BYTES.toLocaleString('en-US')} are attached]`);
    expect(out.text.endsWith('</attached_resource>')).toBe(true);
  });

  it('a prompt longer than a file mention may be is cut, and the message says so', async () => {
    const m = start(5_000_000);
    await m.settled();
    const out = await mcpPromptMessage(m, 'mcp__big__huge', '');
    const text = out && 'text' in out ? out.text : '';
    expect(text.length).toBeLessThan(ATTACHMENT_MAX_BYTES + 1_000);
    expect(text.endsWith(`[truncated: the prompt has 5,000,000 characters; only the first ${ATTACHMENT_MAX_BYTES.toLocaleString('en-US')} are sent]`)).toBe(true);
  });
});
