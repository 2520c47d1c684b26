/**
 * MCP in the REPL (in-process, real session, server-everything over stdio): `/mcp`, prompts as
 * slash commands, `@server:uri` resources.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempWorkspace } from '../kit/temp-dir.js';
import { lastUserText } from './fake-requests.js';
import { KEYS, startHarness, type ReplHarness } from './harness.js';

const EVERYTHING = path.resolve(import.meta.dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');

let h: ReplHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function withEverything(): Promise<ReplHarness> {
  const ws = tempWorkspace();
  writeFileSync(
    path.join(ws.home, 'config.json'),
    JSON.stringify({ mcpServers: { ev: { command: process.execPath, args: [EVERYTHING, 'stdio'] }, gone: { command: 'keen-no-such-mcp-server' } } }),
  );
  return startHarness({ workspace: ws, responder: () => ({ steps: [{ text: 'noted' }] }) });
}

describe('MCP in the REPL', () => {
  it('/mcp shows each server with its state, tool count, error and prompts', async () => {
    h = await withEverything();
    await h.runtime.session?.mcp?.settled();
    h.send('/mcp');
    const frame = await h.waitFor('Prompts:');
    expect(frame).toMatch(/ev\s+stdio\s+ready\s+\d+ tools/);
    expect(frame).toMatch(/gone\s+stdio\s+failed\s+0 tools\s+command not found: keen-no-such-mcp-server/);
    expect(frame).toContain('/mcp__ev__simple-prompt  A prompt with no arguments');
    expect(frame).toContain('/mcp__ev__args-prompt city=…');
    // The failure also reached the transcript as one warning.
    expect(frame).toContain('MCP server "gone" failed to start: command not found: keen-no-such-mcp-server');
    expect(h.fake.requests).toHaveLength(0);
  });

  it('a prompt command sends the prompt text; a missing required argument is named', async () => {
    h = await withEverything();
    await h.runtime.session?.mcp?.settled();
    // Tab completes prompt commands like the built-in ones.
    h.write('/mcp__ev__si');
    h.write('\t');
    await h.waitFor('› /mcp__ev__simple-prompt');
    h.write(KEYS.ctrlC);
    await h.waitFor((f) => !f.includes('› /mcp__ev__simple-prompt'));
    h.send('/mcp__ev__args-prompt');
    await h.waitFor('/mcp__ev__args-prompt needs city=…');
    h.send('/mcp__ev__args-prompt city=Paris');
    await h.waitFor('noted');
    expect(h.fake.requests.map(lastUserText)).toEqual(["What's weather in Paris?"]);
  });

  it('@server:uri attaches the resource to the message', async () => {
    h = await withEverything();
    await h.runtime.session?.mcp?.settled();
    h.send('summarise @ev:demo://resource/static/document/architecture.md please');
    await h.waitFor('noted');
    const sent = lastUserText(h.fake.requests[0]);
    expect(sent).toMatch(
      /^summarise @ev:demo:\/\/resource\/static\/document\/architecture\.md please\n\n<attached_resource server="ev" uri="demo:\/\/resource\/static\/document\/architecture\.md">\n/,
    );
    expect(sent).toContain('</attached_resource>');
    expect(sent.length).toBeGreaterThan(300);
  });
});
