/**
 * `keen acp` end to end: the ACP SDK's client side drives a spawned `bin/keen.js acp` over stdio,
 * against the Anthropic wire fake, as an editor (Zed, say) would.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { FAKE_KEY, filesUnder, userTexts } from '../e2e/cli-fixtures.js';
import { tempWorkspace } from '../kit/temp-dir.js';
import { isCompactionRequest } from '../repl/fake-requests.js';
import { question, writeLongSession } from '../repl/long-session.js';
import { editorSuite, prompt, texts } from './editor-client.js';

const suite = editorSuite();
const editor = suite.editor.bind(suite);

describe('keen acp', () => {
  it('answers initialize, opens a session with modes and commands, and streams a reply', async () => {
    const ws = tempWorkspace();
    const e = await editor(ws);
    const { sessionId, modes } = await e.agent.request(acp.methods.agent.session.new, { cwd: ws.cwd, mcpServers: [] });
    expect(modes?.currentModeId).toBe('default');
    expect(modes?.availableModes.map((m) => m.id)).toEqual(['default', 'acceptEdits', 'plan', 'bypassPermissions']);
    suite.fake.enqueue({ steps: [{ text: 'Hello ' }, { text: 'from Keen.' }] });
    const from = suite.fake.requests.length;
    const r = await prompt(e, sessionId, 'say hello');
    expect(r.stopReason).toBe('end_turn');
    expect(texts(e.updates, 'agent_message_chunk')).toBe('Hello from Keen.');
    expect(userTexts(suite.fake.requests[from]).at(-1)).toBe('say hello');
    const commands = e.updates.find((u) => u.sessionUpdate === 'available_commands_update');
    expect(commands && 'availableCommands' in commands ? commands.availableCommands.map((c) => c.name) : []).toContain('compact');
  });

  it('asks through session/request_permission for an edit, shows its diff, and runs it once allowed', async () => {
    const ws = tempWorkspace({ 'notes.md': 'old line\n' });
    const e = await editor(ws);
    const { sessionId } = await e.agent.request(acp.methods.agent.session.new, { cwd: ws.cwd, mcpServers: [] });
    suite.fake.enqueue(
      { steps: [{ toolCall: { id: 'call_edit', name: 'edit_file', args: { path: 'notes.md', old_string: 'old line', new_string: 'new line' } } }] },
      { steps: [{ text: 'Edited.' }] },
    );
    const r = await prompt(e, sessionId, 'fix the note');
    expect(r.stopReason).toBe('end_turn');
    expect(fs.readFileSync(path.join(ws.cwd, 'notes.md'), 'utf8')).toBe('new line\n');
    expect(e.permissions).toHaveLength(1);
    expect(e.permissions[0].toolCall.toolCallId).toBe('call_edit');
    expect(e.permissions[0].options.map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once']);
    const started = e.updates.find((u) => u.sessionUpdate === 'tool_call');
    expect(started).toMatchObject({ toolCallId: 'call_edit', kind: 'edit', status: 'in_progress', locations: [{ path: path.join(ws.cwd, 'notes.md') }] });
    expect(started && 'content' in started ? started.content : []).toEqual([{ type: 'diff', path: path.join(ws.cwd, 'notes.md'), oldText: 'old line', newText: 'new line' }]);
    expect(e.updates.find((u) => u.sessionUpdate === 'tool_call_update')).toMatchObject({ toolCallId: 'call_edit', status: 'completed' });
  });

  it('a rejected call does not run, and plan mode refuses without asking', async () => {
    const ws = tempWorkspace();
    const e = await editor(ws);
    const { sessionId } = await e.agent.request(acp.methods.agent.session.new, { cwd: ws.cwd, mcpServers: [] });
    e.answer = 'deny';
    suite.fake.enqueue({ steps: [{ toolCall: { id: 'call_w1', name: 'write_file', args: { path: 'a.txt', content: 'x\n' } } }] }, { steps: [{ text: 'ok' }] });
    await prompt(e, sessionId, 'write a');
    expect(fs.existsSync(path.join(ws.cwd, 'a.txt'))).toBe(false);
    expect(e.updates.find((u) => u.sessionUpdate === 'tool_call_update')).toMatchObject({ toolCallId: 'call_w1', status: 'failed' });

    await e.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'plan' });
    const asked = e.permissions.length;
    suite.fake.enqueue({ steps: [{ toolCall: { id: 'call_w2', name: 'write_file', args: { path: 'b.txt', content: 'x\n' } } }] }, { steps: [{ text: 'planned' }] });
    await prompt(e, sessionId, 'write b');
    expect(e.permissions).toHaveLength(asked);
    expect(fs.existsSync(path.join(ws.cwd, 'b.txt'))).toBe(false);
    await expect(e.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'yolo' })).rejects.toThrow(/unknown mode "yolo"/);
  });

  it('session/cancel stops a streaming turn: stopReason cancelled', async () => {
    const ws = tempWorkspace();
    const e = await editor(ws);
    const { sessionId } = await e.agent.request(acp.methods.agent.session.new, { cwd: ws.cwd, mcpServers: [] });
    suite.fake.enqueue({ steps: [{ text: 'Working' }, { delayMs: 30_000 }, { text: ' never shown' }] });
    e.onUpdate = (u) => {
      if (u.sessionUpdate === 'agent_message_chunk') void e.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    };
    const r = await prompt(e, sessionId, 'work slowly');
    expect(r.stopReason).toBe('cancelled');
    expect(texts(e.updates, 'agent_message_chunk')).toBe('Working');
  });

  it('session/load replays a stored session and the next prompt carries its history', async () => {
    const ws = tempWorkspace();
    const first = await editor(ws);
    const { sessionId } = await first.agent.request(acp.methods.agent.session.new, { cwd: ws.cwd, mcpServers: [] });
    suite.fake.enqueue({ steps: [{ text: 'The answer is 42.' }] });
    await prompt(first, sessionId, 'what is the answer?');
    await first.close();

    const second = await editor(ws);
    await second.agent.request(acp.methods.agent.session.load, { sessionId, cwd: ws.cwd, mcpServers: [] });
    expect(texts(second.updates, 'user_message_chunk')).toBe('what is the answer?');
    expect(texts(second.updates, 'agent_message_chunk')).toBe('The answer is 42.');
    suite.fake.enqueue({ steps: [{ text: 'Still 42.' }] });
    const from = suite.fake.requests.length;
    await prompt(second, sessionId, 'and now?');
    expect(userTexts(suite.fake.requests[from])).toEqual(['what is the answer?', 'and now?']);
    await expect(second.agent.request(acp.methods.agent.session.load, { sessionId: 'no-such-session', cwd: ws.cwd, mcpServers: [] })).rejects.toThrow(/no-such-session/);
  });

  it('session/load leaves out the turns a rewind took back, as the model no longer has them', async () => {
    const ws = tempWorkspace();
    const first = await editor(ws);
    const { sessionId } = await first.agent.request(acp.methods.agent.session.new, { cwd: ws.cwd, mcpServers: [] });
    suite.fake.enqueue({ steps: [{ text: 'First answer.' }] });
    await prompt(first, sessionId, 'first question');
    suite.fake.enqueue({ steps: [{ text: 'Rewound answer.' }] });
    await prompt(first, sessionId, 'question taken back');
    await first.close();
    // What the REPL's `/rewind` to the second prompt writes (docs/sessions.md, `undo`).
    const file = filesUnder(path.join(ws.home, 'sessions')).find((f) => f.includes(sessionId) && f.endsWith('transcript_events.jsonl'));
    expect(file).toBeDefined();
    const records = fs
      .readFileSync(file as string, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; kind: string; message?: { content: string } });
    const taken = records.find((r) => r.kind === 'user_message' && r.message?.content === 'question taken back');
    expect(taken).toBeDefined();
    const seq = Math.max(...records.map((r) => r.seq)) + 1;
    fs.appendFileSync(
      file as string,
      `${JSON.stringify({ seq, kind: 'undo', ts: new Date().toISOString(), turn_seqs: [taken?.seq], files: [], conversation_to_seq: taken?.seq })}\n`,
    );

    const second = await editor(ws);
    await second.agent.request(acp.methods.agent.session.load, { sessionId, cwd: ws.cwd, mcpServers: [] });
    expect(texts(second.updates, 'user_message_chunk')).toBe('first question');
    expect(texts(second.updates, 'agent_message_chunk')).toBe('First answer.');
    suite.fake.enqueue({ steps: [{ text: 'ok' }] });
    const from = suite.fake.requests.length;
    await prompt(second, sessionId, 'next');
    expect(userTexts(suite.fake.requests[from])).toEqual(['first question', 'next']);
  });

  it('session/load of a long transcript read only in part says first that earlier turns are not shown', async () => {
    const ws = tempWorkspace();
    // More records before the last compaction than a replay reads (SHOWN_BUDGET, src/agent/session-resume.ts).
    const sessionId = await writeLongSession({ home: ws.home, cwd: ws.cwd, turns: 1560, compactEvery: 1550 });
    const e = await editor(ws);
    await e.agent.request(acp.methods.agent.session.load, { sessionId, cwd: ws.cwd, mcpServers: [] });
    const shown = e.updates.filter((u) => u.sessionUpdate !== 'available_commands_update');
    expect(texts(shown.slice(0, 1), 'agent_thought_chunk')).toBe('… earlier turns not shown (a long transcript: only its later part was read)\n');
    expect(texts(shown, 'agent_thought_chunk').match(/earlier turns not shown/g)).toHaveLength(1);
    const prompts = shown.filter((u) => u.sessionUpdate === 'user_message_chunk').map((u) => texts([u], 'user_message_chunk'));
    expect(prompts).not.toContain(question(0));
    expect(prompts.at(-1)).toBe(question(1559));
  });

  it('session/load shows where a tool call worked (locations, the diff of an edit) and where the context was compacted', async () => {
    const ws = tempWorkspace({ 'notes.md': 'old line\n' });
    const caps = { session: { compaction: {} } };
    const first = await editor(ws, { capabilities: caps });
    const { sessionId } = await first.agent.request(acp.methods.agent.session.new, { cwd: ws.cwd, mcpServers: [] });
    suite.fake.enqueue(
      { steps: [{ toolCall: { id: 'call_edit', name: 'edit_file', args: { path: 'notes.md', old_string: 'old line', new_string: 'new line' } } }] },
      { steps: [{ text: 'Edited.' }] },
      { steps: [{ text: '## Goal\nFix the note.' }] },
    );
    await prompt(first, sessionId, 'fix the note');
    await prompt(first, sessionId, '/compact');
    suite.fake.enqueue({ steps: [{ text: 'Done.' }] });
    await prompt(first, sessionId, 'anything else?');
    await first.close();

    const file = path.join(ws.cwd, 'notes.md');
    const card = { toolCallId: 'call_edit', status: 'completed', locations: [{ path: file }], content: [{ type: 'diff', path: file, oldText: 'old line', newText: 'new line' }] };
    const order = (e: { updates: acp.SessionUpdate[] }) => e.updates.map((u) => u.sessionUpdate).filter((k) => k !== 'available_commands_update');
    const withCard = await editor(ws, { capabilities: caps });
    await withCard.agent.request(acp.methods.agent.session.load, { sessionId, cwd: ws.cwd, mcpServers: [] });
    expect(withCard.updates.find((u) => u.sessionUpdate === 'tool_call')).toMatchObject(card);
    expect(withCard.updates.find((u) => u.sessionUpdate === 'compaction_update')).toMatchObject({
      status: 'completed',
      summary: [{ type: 'text', text: '## Goal\nFix the note.' }],
    });
    expect(order(withCard)).toEqual(['user_message_chunk', 'tool_call', 'agent_message_chunk', 'compaction_update', 'user_message_chunk', 'agent_message_chunk']);
    await withCard.close();

    const plain = await editor(ws);
    await plain.agent.request(acp.methods.agent.session.load, { sessionId, cwd: ws.cwd, mcpServers: [] });
    expect(plain.updates.find((u) => u.sessionUpdate === 'tool_call')).toMatchObject(card);
    expect(plain.updates.some((u) => u.sessionUpdate === 'compaction_update')).toBe(false);
    expect(texts(plain.updates, 'agent_thought_chunk')).toBe('Context compacted.\n');
    expect(order(plain)).toEqual(['user_message_chunk', 'tool_call', 'agent_message_chunk', 'agent_thought_chunk', 'user_message_chunk', 'agent_message_chunk']);
  });

  it('an automatic compaction shows as it runs: compaction_update where the client takes it, thought lines elsewhere', async () => {
    const tiny = { models: { tiny: { provider: 'anthropic', contextWindow: 12_000, maxOutputTokens: 1000 } }, model: 'tiny' };
    const files: Record<string, string> = { '.keen/config.json': JSON.stringify(tiny) };
    for (let n = 1; n <= 4; n++) files[`log-${n}.txt`] = Array.from({ length: 150 }, (_, k) => `entry ${k} of log ${n}: code_${(k * 7919 + n) % 10007} ok`).join('\n');
    for (const caps of [{ session: { compaction: {} } }, {}]) {
      const ws = tempWorkspace(files);
      const e = await editor(ws, { capabilities: caps });
      const { sessionId } = await e.agent.request(acp.methods.agent.session.new, { cwd: ws.cwd, mcpServers: [] });
      let turns = 0;
      suite.fake.setResponder((req) => {
        if (isCompactionRequest(req)) return { steps: [{ text: '## Goal\nRead every log.' }] };
        turns++;
        if (turns > 4) return { steps: [{ text: 'Finished.' }] };
        return { steps: [{ toolCall: { id: `t${turns}`, name: 'read_file', args: { path: `log-${turns}.txt` } } }] };
      });
      try {
        expect((await prompt(e, sessionId, 'Read every log.')).stopReason).toBe('end_turn');
      } finally {
        suite.fake.setResponder(undefined);
      }
      if (caps.session) {
        const updates = e.updates.filter((u) => u.sessionUpdate === 'compaction_update');
        expect(updates.map((u) => ('status' in u ? u.status : ''))).toEqual(['in_progress', 'completed']);
        expect(updates[1]).toMatchObject({
          compactionId: updates[0] && 'compactionId' in updates[0] ? updates[0].compactionId : '',
          summary: [{ type: 'text', text: '## Goal\nRead every log.' }],
        });
      } else {
        expect(e.updates.some((u) => u.sessionUpdate === 'compaction_update')).toBe(false);
        expect(texts(e.updates, 'agent_thought_chunk')).toMatch(/Compacting the conversation[\s\S]*Context compacted: ~\d+ → ~\d+ tokens\./);
      }
      expect(texts(e.updates, 'agent_message_chunk')).toContain('Finished.');
    }
  });

  it('a credential the model reads or repeats reaches the editor redacted, never in clear', async () => {
    const ws = tempWorkspace({ '.env': `ANTHROPIC_API_KEY=${FAKE_KEY}\n` });
    const e = await editor(ws);
    const { sessionId } = await e.agent.request(acp.methods.agent.session.new, { cwd: ws.cwd, mcpServers: [] });
    suite.fake.enqueue({ steps: [{ toolCall: { id: 'c_env', name: 'read_file', args: { path: '.env' } } }] }, { steps: [{ text: `the key is ${FAKE_KEY}` }] });
    await prompt(e, sessionId, 'read .env');
    expect(e.stdout()).not.toContain(FAKE_KEY);
    expect(texts(e.updates, 'agent_message_chunk')).toContain('[REDACTED]');
  });

  it('--trust and --yolo trust only the folder keen acp runs in, not every folder the editor names', async () => {
    const ws = tempWorkspace();
    const other = tempWorkspace({ '.mcp.json': '{"mcpServers":{}}' });
    const e = await editor(ws, { args: ['--trust'] });
    await e.agent.request(acp.methods.agent.session.new, { cwd: other.cwd, mcpServers: [] });
    const storeFile = path.join(ws.home, 'trusted-projects.json');
    expect(fs.existsSync(storeFile) ? fs.readFileSync(storeFile, 'utf8') : '').not.toContain(fs.realpathSync(other.cwd));
    await e.agent.request(acp.methods.agent.session.new, { cwd: ws.cwd, mcpServers: [] });
    expect(fs.readFileSync(storeFile, 'utf8')).toContain(fs.realpathSync(ws.cwd));
    await expect(e.agent.request(acp.methods.agent.session.new, { cwd: 'relative/dir', mcpServers: [] })).rejects.toThrow(/absolute/);
  });

  it('started with --mode plan, the session says plan mode', async () => {
    const ws = tempWorkspace();
    const e = await editor(ws, { args: ['--mode', 'plan'] });
    const { modes } = await e.agent.request(acp.methods.agent.session.new, { cwd: ws.cwd, mcpServers: [] });
    expect(modes?.currentModeId).toBe('plan');
  });
});
