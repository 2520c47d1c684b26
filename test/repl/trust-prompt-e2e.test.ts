/**
 * The REPL's once-per-folder trust question, in a real terminal (tmux) against the Anthropic fake.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { everything } from '../e2e/mcp-fixtures.js';
import { TmuxKeen } from './tmux.js';

let fake: ScriptedServer;
let ws: Workspace;
const terminals: TmuxKeen[] = [];

beforeEach(async () => {
  fake = await startAnthropicFake();
  ws = tempWorkspace({ '.keen/config.json': JSON.stringify({ permissions: { allow: ['bash'] } }) });
});
afterEach(async () => {
  for (const t of terminals.splice(0)) t.kill();
  await fake.close();
  ws.cleanup();
});

function keen(width?: number): TmuxKeen {
  const t = TmuxKeen.start({ cwd: ws.cwd, width, env: { KEEN_HOME: ws.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url } });
  terminals.push(t);
  return t;
}

const QUESTION = 'Trust this folder?';

describe('the REPL trust question', () => {
  it('asks once; a yes is remembered and the project rules apply (bash runs without asking)', async () => {
    const t = keen();
    await t.waitFor(QUESTION);
    expect(t.capture()).toContain('permissions.allow (bash)');
    t.type('y');
    await t.waitFor('Type a message');
    fake.enqueue({ steps: [{ toolCall: { name: 'bash', args: { command: 'touch ran-unasked' } } }] }, { steps: [{ text: 'Done it.' }] });
    t.type('make a file');
    await t.waitFor('Done it.');
    expect(fs.existsSync(path.join(ws.cwd, 'ran-unasked'))).toBe(true);
    t.type('/exit');
    await t.waitFor('[keen exited 0]');
    t.kill();

    const again = keen();
    await again.waitFor('Type a message');
    expect(again.capture()).not.toContain(QUESTION);
  });

  it('a project that only declares MCP servers (.mcp.json) is asked about too; a yes starts them', async () => {
    ws.cleanup();
    ws = tempWorkspace({ '.mcp.json': JSON.stringify({ mcpServers: { proj: everything() } }) });
    const t = keen();
    await t.waitFor(QUESTION);
    expect(t.capture()).toContain('.mcp.json declares MCP servers');
    t.type('y');
    await t.waitFor('Type a message');
    fake.enqueue({ steps: [{ text: 'Tools seen.' }] });
    t.type('hello');
    await t.waitFor('Tools seen.');
    const tools = (fake.requests[fake.requests.length - 1].body.tools as { name: string }[]).map((tool) => tool.name);
    expect(tools).toContain('mcp__proj__echo');
  });

  it("a project whose only hooks are Claude Code's (.claude/settings.json) is asked about; a yes runs them", async () => {
    ws.cleanup();
    ws = tempWorkspace();
    const marker = path.join(path.dirname(ws.cwd), 'claude-hook-ran');
    fs.mkdirSync(path.join(ws.cwd, '.claude'));
    fs.writeFileSync(
      path.join(ws.cwd, '.claude/settings.json'),
      JSON.stringify({ model: 'opus', hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `touch '${marker}'` }] }] } }),
    );
    const t = keen();
    await t.waitFor(QUESTION);
    expect(t.capture()).toContain('settings.json declares hooks (UserPromptSubmit)');
    t.type('y');
    await t.waitFor('Type a message');
    fake.enqueue({ steps: [{ text: 'Hooked.' }] });
    t.type('hello');
    await t.waitFor('Hooked.');
    expect(fs.existsSync(marker)).toBe(true);
  });

  it('repository text cannot add lines to the question: a newline in a rule or a hook event shows as \\n', async () => {
    ws.cleanup();
    const spoof = 'Keen checked this folder: nothing here runs';
    ws = tempWorkspace({ '.keen/config.json': JSON.stringify({ permissions: { allow: [`bash(npm test\n\n${spoof})`] } }) });
    fs.mkdirSync(path.join(ws.cwd, '.claude'));
    const hooks = { PreToolUse: [{ hooks: [{ type: 'command', command: 'true' }] }], [`Stop)\n${spoof} (`]: [{ hooks: [] }] };
    fs.writeFileSync(path.join(ws.cwd, '.claude/settings.json'), JSON.stringify({ hooks }));
    const t = keen(400); // wide enough that the question does not wrap
    await t.waitFor(QUESTION);
    const screen = t.capture();
    // Every repository word stays on the line that names its file; no line starts with it.
    expect(screen.split('\n').filter((line) => line.trimStart().startsWith(spoof))).toEqual([]);
    expect(screen).toContain('bash(npm test\\n\\nKeen checked');
    // An event Keen has no step for runs nothing, so it is not named.
    expect(screen).toContain('declares hooks (PreToolUse)');
  });

  it('a no is remembered too: not asked again, and bash still asks', async () => {
    const t = keen();
    await t.waitFor(QUESTION);
    t.type('n');
    await t.waitFor((s) => s.includes('Type a message') && s.includes('not trusted'));
    t.type('/exit');
    await t.waitFor('[keen exited 0]');
    t.kill();
    const store = JSON.parse(fs.readFileSync(path.join(ws.home, 'trusted-projects.json'), 'utf8'));
    expect(store.projects[fs.realpathSync(ws.cwd)].trusted).toBe(false);

    const again = keen();
    await again.waitFor('Type a message');
    expect(again.capture()).not.toContain(QUESTION);
    fake.enqueue({ steps: [{ toolCall: { name: 'bash', args: { command: 'touch nope' } } }] }, { steps: [{ text: 'ok' }] });
    again.type('make a file');
    await again.waitFor('Allow bash?');
  });
});
