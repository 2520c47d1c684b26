/**
 * `keen acp` with what the editor brings: auth methods, its file buffers (`fs/*`), its terminals
 * (`terminal/*`), its MCP servers and model selection. The ACP SDK's client side drives a spawned
 * `bin/keen.js acp` against the Anthropic wire fake.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { FAKE_KEY, toolResults } from '../e2e/cli-fixtures.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';
import { EVERYTHING, waitFor } from '../e2e/mcp-fixtures.js';
import { type Editor, editorSuite, prompt, texts } from './editor-client.js';

const suite = editorSuite();
const editor = suite.editor.bind(suite);

const newSession = (e: Editor, ws: Workspace, mcpServers: acp.McpServer[] = []) => e.agent.request(acp.methods.agent.session.new, { cwd: ws.cwd, mcpServers });

describe('auth methods', () => {
  it('names one method per configured provider; authenticate checks the credential without echoing it', async () => {
    const ws = tempWorkspace();
    fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ models: { gpt: { provider: 'codex', id: 'gpt-5-codex' } } }));
    const e = await editor(ws);
    expect(e.initialized.authMethods?.map((m) => m.name)).toEqual(['Anthropic API key (ANTHROPIC_API_KEY)', 'ChatGPT login (keen login codex)']);
    expect(await e.agent.request(acp.methods.agent.authenticate, { methodId: 'anthropic-api-key' })).toEqual({});
    await expect(e.agent.request(acp.methods.agent.authenticate, { methodId: 'codex-login' })).rejects.toThrow(/Authentication required: no ChatGPT login: run `keen login codex`/);
    await expect(e.agent.request(acp.methods.agent.authenticate, { methodId: 'nope' })).rejects.toThrow(/unknown auth method "nope"; choose one of anthropic-api-key, codex-login/);
    expect(e.stdout()).not.toContain(FAKE_KEY);
  });

  it('without a key, authenticate and session/new answer "authentication required" naming the variable', async () => {
    const ws = tempWorkspace();
    const e = await editor(ws, { env: { ANTHROPIC_API_KEY: undefined } });
    await expect(e.agent.request(acp.methods.agent.authenticate, { methodId: 'anthropic-api-key' })).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining('ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN is not set'),
    });
    await expect(newSession(e, ws)).rejects.toMatchObject({ code: -32000, message: expect.stringContaining('ANTHROPIC_API_KEY') });
  });
});

/** One reply with these tool calls, then a final text; returns the index of the request that carries their results. */
function calls(list: { id: string; name: string; args: unknown }[]): number {
  const from = suite.fake.requests.length;
  suite.fake.enqueue({ steps: list.map((c) => ({ toolCall: c })) }, { steps: [{ text: 'done' }] });
  return from + 1;
}

describe('files through the editor (fs/*)', () => {
  const FS = { fs: { readTextFile: true, writeTextFile: true } };

  it("read_file sees the editor's unsaved buffer, an edit arrives as fs/write_text_file with the buffer's diff", async () => {
    const ws = tempWorkspace({ 'notes.md': 'saved text\n' });
    const e = await editor(ws, { capabilities: FS });
    const file = path.join(fs.realpathSync(ws.cwd), 'notes.md');
    e.buffers.set(file, 'unsaved text\nsecond line\n');
    const { sessionId } = await newSession(e, ws);
    const second = calls([
      { id: 'r1', name: 'read_file', args: { path: 'notes.md' } },
      { id: 'e1', name: 'edit_file', args: { path: 'notes.md', old_string: 'unsaved text', new_string: 'edited text' } },
    ]);
    expect((await prompt(e, sessionId, 'fix the note')).stopReason).toBe('end_turn');
    const [read, edit] = toolResults(suite.fake.requests[second]);
    expect(read.text).toContain('unsaved text');
    expect(read.text).not.toMatch(/\tsaved text/);
    expect(edit).toEqual({ text: expect.stringContaining('Edited notes.md'), isError: false });
    expect(e.buffers.get(file)).toBe('edited text\nsecond line\n');
    expect(e.fsCalls).toContain(`write ${file}`);
    // The editor holds the change; Keen did not write the disk behind its back.
    expect(fs.readFileSync(file, 'utf8')).toBe('saved text\n');
    expect(e.permissions).toHaveLength(1);
  });

  it("Keen's rules still decide: a refused edit, a protected path and a path outside the workspace never reach the editor", async () => {
    const ws = tempWorkspace({ 'a.txt': 'a\n', '.git/config': '[core]\n' });
    fs.writeFileSync(path.join(path.dirname(ws.cwd), 'outside.txt'), 'outside on disk\n');
    const e = await editor(ws, { capabilities: FS });
    const real = fs.realpathSync(ws.cwd);
    e.buffers.set(path.join(real, 'a.txt'), 'a\n');
    const { sessionId } = await newSession(e, ws);
    e.answer = 'deny';
    const second = calls([
      { id: 'w1', name: 'write_file', args: { path: 'a.txt', content: 'refused\n' } },
      { id: 'w2', name: 'write_file', args: { path: '.git/config', content: '[core]\n\thooksPath = x\n' } },
      { id: 'w3', name: 'write_file', args: { path: '../outside.txt', content: 'escaped\n' } },
    ]);
    await prompt(e, sessionId, 'try things');
    e.answer = 'once';
    const third = calls([{ id: 'r2', name: 'read_file', args: { path: path.join(path.dirname(real), 'outside.txt') } }]);
    await prompt(e, sessionId, 'read outside');
    const results = [...toolResults(suite.fake.requests[second]), toolResults(suite.fake.requests[third]).at(-1)!];
    expect(results.slice(0, 3).map((r) => r.isError)).toEqual([true, true, true]);
    expect(e.fsCalls.filter((c) => c.startsWith('write'))).toEqual([]);
    expect(e.buffers.get(path.join(real, 'a.txt'))).toBe('a\n');
    // A read outside the workspace reads the disk, not the editor.
    expect(results[3].text).toContain('outside on disk');
    expect(e.fsCalls).not.toContain(`read ${path.join(path.dirname(real), 'outside.txt')}`);
  });
});

describe('terminals through the editor (terminal/*)', () => {
  const userConfig = (ws: Workspace, config: unknown) => fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify(config));

  it("with Keen's sandbox off, bash runs in the editor's terminal, embedded in the call's card, without Keen's key", async () => {
    const ws = tempWorkspace();
    userConfig(ws, { sandbox: { mode: 'off' } });
    const e = await editor(ws, { capabilities: { terminal: true } });
    const { sessionId } = await newSession(e, ws);
    const second = calls([{ id: 'b1', name: 'bash', args: { command: 'echo "in the editor: ${ANTHROPIC_API_KEY:-no key}"; exit 3' } }]);
    await prompt(e, sessionId, 'run it');
    const [result] = toolResults(suite.fake.requests[second]);
    expect(result).toEqual({ text: 'in the editor: no key\n[exit code 3]', isError: true });
    const [terminalId, term] = [...e.terminals.entries()][0];
    expect(term).toMatchObject({ command: 'bash', cwd: ws.cwd, released: true });
    const cards = e.updates.filter((u) => u.sessionUpdate === 'tool_call_update' && 'toolCallId' in u && u.toolCallId === 'b1');
    expect(cards[0]).toMatchObject({ content: [{ type: 'terminal', terminalId }] });
    expect(cards.at(-1)).toMatchObject({ status: 'failed', content: [{ type: 'terminal', terminalId }, { type: 'content' }] });
  });

  it("a relative folder on the editor's PATH names no program in the editor's terminal, as in Keen's own bash", async () => {
    const ws = tempWorkspace({ 'bin/git': '#!/bin/sh\necho "the repository\'s git"\n' });
    fs.chmodSync(path.join(ws.cwd, 'bin/git'), 0o755);
    userConfig(ws, { sandbox: { mode: 'off' } });
    const e = await editor(ws, { capabilities: { terminal: true }, env: { PATH: `bin${path.delimiter}${process.env.PATH}` } });
    const { sessionId } = await newSession(e, ws);
    const second = calls([{ id: 'g1', name: 'bash', args: { command: 'git --version' } }]);
    await prompt(e, sessionId, 'which git?');
    expect(e.terminals.size).toBe(1);
    const [result] = toolResults(suite.fake.requests[second]);
    expect(result.text).toMatch(/^git version/);
    expect(result.text).not.toContain("the repository's git");
  });

  it('an editor that never ends a killed terminal does not hold the turn', async () => {
    const ws = tempWorkspace();
    userConfig(ws, { sandbox: { mode: 'off' } });
    const e = await editor(ws, { capabilities: { terminal: true }, deafToKill: true });
    const { sessionId } = await newSession(e, ws);
    const second = calls([{ id: 's1', name: 'bash', args: { command: 'echo started; sleep 60', timeout_seconds: 1 } }]);
    const answer = await prompt(e, sessionId, 'wait a minute');
    expect(answer).toMatchObject({ stopReason: 'end_turn' });
    const [result] = toolResults(suite.fake.requests[second]);
    expect(result.text).toContain('[the editor did not end its terminal]');
    expect(result.text).toContain('timed out after 1s');
  }, 20_000);

  it("under Keen's sandbox bash stays Keen's own unless the user config opts in; plan mode never uses the editor's terminal", async () => {
    const ws = tempWorkspace();
    const e = await editor(ws, { capabilities: { terminal: true } });
    const { sessionId } = await newSession(e, ws);
    const second = calls([{ id: 'b2', name: 'bash', args: { command: 'echo own' } }]);
    await prompt(e, sessionId, 'run it');
    expect(toolResults(suite.fake.requests[second])[0].text).toContain('own');
    expect(e.terminals.size).toBe(0);

    const opted = tempWorkspace();
    userConfig(opted, { acp: { clientTerminal: true } });
    const o = await editor(opted, { capabilities: { terminal: true } });
    const s = await newSession(o, opted);
    calls([{ id: 'b3', name: 'bash', args: { command: 'echo editor' } }]);
    await prompt(o, s.sessionId, 'run it');
    expect([...o.terminals.values()].map((t) => t.args)).toEqual([['-c', 'echo editor']]);
    await o.agent.request(acp.methods.agent.session.setMode, { sessionId: s.sessionId, modeId: 'plan' });
    calls([{ id: 'b4', name: 'bash', args: { command: 'echo planning' } }]);
    await prompt(o, s.sessionId, 'look around');
    expect(o.terminals.size).toBe(1);
  });
});

describe("the editor's MCP servers", () => {
  it('a stdio server from session/new starts in an untrusted folder, with the env the editor gave and no Keen credential', async () => {
    const ws = tempWorkspace();
    const e = await editor(ws);
    const server: acp.McpServer = {
      name: 'everything',
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
      env: [
        { name: 'FROM_EDITOR', value: 'editor-value' },
        { name: 'LEAKED', value: '${ANTHROPIC_API_KEY}' },
      ],
    };
    const { sessionId } = await newSession(e, ws, [server]);
    const second = calls([
      { id: 'm1', name: 'mcp__everything__echo', args: { message: 'round trip' } },
      { id: 'm2', name: 'mcp__everything__get-env', args: {} },
    ]);
    expect((await prompt(e, sessionId, 'use the server')).stopReason).toBe('end_turn');
    const [echo, env] = toolResults(suite.fake.requests[second]);
    expect(echo).toEqual({ text: expect.stringContaining('round trip'), isError: false });
    expect(env.text).toContain('editor-value');
    expect(env.text).not.toContain('LEAKED');
    expect(env.text).not.toContain(FAKE_KEY);
    expect(env.text).not.toContain('ANTHROPIC_API_KEY');
    expect(e.stderr()).toContain('MCP server everything (the editor (session/new)) starts without ${ANTHROPIC_API_KEY}');
  });
});

describe('model selection (session config options)', () => {
  const modelOption = (options: acp.SessionConfigOption[] | null | undefined) => options?.find((o) => o.id === 'model');

  it('offers the models of the providers with a credential; a switch keeps the session id and its history', async () => {
    const ws = tempWorkspace();
    const e = await editor(ws);
    const created = await newSession(e, ws);
    const { sessionId } = created;
    const model = modelOption(created.configOptions);
    expect(model).toMatchObject({ category: 'model', type: 'select', currentValue: 'claude-sonnet-5-5' });
    const values = model && 'options' in model ? (model.options as acp.SessionConfigSelectOption[]).map((o) => o.value) : [];
    expect(values).toContain('claude-haiku-5-5');
    expect(values.some((v) => v.startsWith('gpt'))).toBe(false);

    // Before anything is on disk: the switch opens the session again under the same id.
    const early = await e.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: 'model', value: 'claude-opus-5-5' });
    expect(modelOption(early.configOptions)?.currentValue).toBe('claude-opus-5-5');
    suite.fake.enqueue({ steps: [{ text: 'first' }] });
    const one = suite.fake.requests.length;
    await prompt(e, sessionId, 'first question');
    expect(suite.fake.requests[one].body?.model).toBe('claude-opus-5-5');

    await e.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'acceptEdits' });
    const late = await e.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: 'model', value: 'claude-haiku-5-5' });
    expect(late.configOptions.find((o) => o.id === 'mode')?.currentValue).toBe('acceptEdits');
    suite.fake.enqueue({ steps: [{ text: 'second' }] });
    const two = suite.fake.requests.length;
    await prompt(e, sessionId, 'second question');
    expect(suite.fake.requests[two].body?.model).toBe('claude-haiku-5-5');
    expect(JSON.stringify(suite.fake.requests[two].body?.messages)).toContain('first question');
    await expect(e.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: 'model', value: 'no-such-model' })).rejects.toThrow(
      /unknown model "no-such-model"/,
    );
    await e.close();

    const again = await editor(ws);
    await again.agent.request(acp.methods.agent.session.load, { sessionId, cwd: ws.cwd, mcpServers: [] });
    expect(again.updates.filter((u) => u.sessionUpdate === 'user_message_chunk')).toHaveLength(2);
  });
});

describe('hooks in an editor', () => {
  it('a hook that stops the turn: the prompt ends as end_turn, its reason a thought line the user sees, the call not run', async () => {
    const ws = tempWorkspace();
    const hook = path.join(path.dirname(ws.cwd), 'stop.sh');
    fs.writeFileSync(hook, `#!/bin/sh\ncat >/dev/null\nprintf '%s' '{"continue":false,"stopReason":"release freeze"}'\n`);
    fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `sh '${hook}'` }] }] } }));
    const e = await editor(ws, { args: ['--yolo'] });
    const { sessionId } = await newSession(e, ws);
    const from = suite.fake.requests.length;
    suite.fake.enqueue({ steps: [{ toolCall: { id: 'h1', name: 'bash', args: { command: 'touch ran' } } }] });
    expect((await prompt(e, sessionId, 'go')).stopReason).toBe('end_turn');
    expect(suite.fake.requests.length - from).toBe(1);
    expect(fs.existsSync(path.join(ws.cwd, 'ran'))).toBe(false);
    expect(texts(e.updates, 'agent_thought_chunk')).toContain('a PreToolUse hook stopped the turn: release freeze');
  });
});

describe('Notification hooks in an editor', () => {
  it('a permission question through session/request_permission runs the Notification hooks', async () => {
    const ws = tempWorkspace({ 'notes.md': 'old\n' });
    const root = path.dirname(ws.cwd);
    const hook = path.join(root, 'notify.sh');
    // Written whole, then renamed: the test never reads half a file.
    fs.writeFileSync(hook, `#!/bin/sh\ncat > '${root}/notified.tmp'\nmv '${root}/notified.tmp' '${root}/notified.json'\n`);
    fs.writeFileSync(
      path.join(ws.home, 'config.json'),
      JSON.stringify({ hooks: { Notification: [{ matcher: 'permission_prompt', hooks: [{ type: 'command', command: `sh '${hook}'` }] }] } }),
    );
    const e = await editor(ws);
    const { sessionId } = await newSession(e, ws);
    calls([{ id: 'n1', name: 'edit_file', args: { path: 'notes.md', old_string: 'old', new_string: 'new' } }]);
    expect((await prompt(e, sessionId, 'edit it')).stopReason).toBe('end_turn');
    expect(e.permissions).toHaveLength(1);
    const marker = path.join(root, 'notified.json');
    await waitFor(() => fs.existsSync(marker), 10_000, 'the Notification hook');
    expect(JSON.parse(fs.readFileSync(marker, 'utf8'))).toMatchObject({
      hook_event_name: 'Notification',
      notification_type: 'permission_prompt',
      message: 'Keen needs your permission to use edit_file',
      cwd: ws.cwd,
    });
  });
});

describe('a model that fails to open', () => {
  it('leaves the session on the model it had, still answering, with the error line', async () => {
    const ws = tempWorkspace();
    fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ models: { broken: { provider: 'anthropic', id: 'claude-haiku-5-5', apiKeyEnv: 'NOT_SET_KEY' } } }));
    const e = await editor(ws);
    const { sessionId } = await newSession(e, ws);
    suite.fake.enqueue({ steps: [{ text: 'one' }] });
    await prompt(e, sessionId, 'first');
    await expect(e.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: 'model', value: 'broken' })).rejects.toThrow(/NOT_SET_KEY is not set/);
    suite.fake.enqueue({ steps: [{ text: 'two' }] });
    const at = suite.fake.requests.length;
    expect((await prompt(e, sessionId, 'second')).stopReason).toBe('end_turn');
    expect(suite.fake.requests[at].body?.model).toBe('claude-sonnet-5-5');
    expect(JSON.stringify(suite.fake.requests[at].body?.messages)).toContain('first');
  });
});
