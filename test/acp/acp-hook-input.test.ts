/**
 * A PreToolUse hook's `updatedInput` in an editor: the permission question and the call's card
 * show the input that will run, not the model's. The ACP SDK's client side drives a spawned
 * `bin/keen.js acp` against the Anthropic wire fake, with a real sh hook script.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { tempWorkspace } from '../kit/temp-dir.js';
import { editorSuite, prompt } from './editor-client.js';

const suite = editorSuite();

describe('a hook that rewrites a call, in an editor', () => {
  it('session/request_permission and the card carry the rewritten input and its diff', async () => {
    const ws = tempWorkspace({ 'notes.md': 'old line\n' });
    const hook = path.join(path.dirname(ws.cwd), 'rewrite.sh');
    const rewritten = { path: 'notes.md', old_string: 'old line', new_string: 'hook line' };
    const answer = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'review the rewrite', updatedInput: rewritten } };
    fs.writeFileSync(hook, `#!/bin/sh\ncat >/dev/null\nprintf '%s' '${JSON.stringify(answer)}'\n`);
    fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: `sh '${hook}'` }] }] } }));
    const e = await suite.editor(ws);
    const { sessionId } = await e.agent.request(acp.methods.agent.session.new, { cwd: ws.cwd, mcpServers: [] });
    suite.fake.enqueue(
      { steps: [{ toolCall: { id: 'call_rw', name: 'edit_file', args: { path: 'notes.md', old_string: 'old line', new_string: 'model line' } } }] },
      { steps: [{ text: 'Edited.' }] },
    );
    expect((await prompt(e, sessionId, 'fix the note')).stopReason).toBe('end_turn');
    expect(fs.readFileSync(path.join(ws.cwd, 'notes.md'), 'utf8')).toBe('hook line\n');

    const file = path.join(ws.cwd, 'notes.md');
    const diff = { type: 'diff', path: file, oldText: 'old line', newText: 'hook line' };
    expect(e.permissions).toHaveLength(1);
    const asked = e.permissions[0].toolCall;
    expect(asked).toMatchObject({ toolCallId: 'call_rw', rawInput: rewritten, content: [diff] });
    expect(asked.title).toContain('(input changed by a PreToolUse hook)');
    expect(JSON.stringify(asked)).not.toContain('model line');

    // The card the editor drew from the model's call is redrawn with what runs.
    const changed = e.updates.find((u) => u.sessionUpdate === 'tool_call_update' && 'rawInput' in u && u.rawInput !== undefined);
    expect(changed).toMatchObject({ toolCallId: 'call_rw', rawInput: rewritten, content: [diff] });
    expect(changed && 'title' in changed ? changed.title : '').toContain('(input changed by a PreToolUse hook)');
    const finished = e.updates.filter((u) => u.sessionUpdate === 'tool_call_update' && 'status' in u && u.status === 'completed');
    expect(finished).toHaveLength(1);
    expect(finished[0] && 'content' in finished[0] ? finished[0].content : []).toContainEqual(diff);

    // session/load draws the card as it ran, marked.
    await e.close();
    const again = await suite.editor(ws);
    await again.agent.request(acp.methods.agent.session.load, { sessionId, cwd: ws.cwd, mcpServers: [] });
    const stored = again.updates.find((u) => u.sessionUpdate === 'tool_call');
    expect(stored).toMatchObject({ toolCallId: 'call_rw', rawInput: rewritten, content: [diff], title: 'edit_file notes.md (input changed by a PreToolUse hook)' });
  });
});

describe('permission questions in an editor', () => {
  it('two calls of one tool asking at once each name their own card', async () => {
    const ws = tempWorkspace();
    const outside = path.join(path.dirname(ws.cwd), 'outside');
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'a.txt'), 'A\n');
    fs.writeFileSync(path.join(outside, 'b.txt'), 'B\n');
    const e = await suite.editor(ws);
    const { sessionId } = await e.agent.request(acp.methods.agent.session.new, { cwd: ws.cwd, mcpServers: [] });
    // Reads outside the workspace ask, and read_file calls run side by side.
    suite.fake.enqueue(
      {
        steps: [
          { toolCall: { id: 'call_a', name: 'read_file', args: { path: path.join(outside, 'a.txt') } } },
          { toolCall: { id: 'call_b', name: 'read_file', args: { path: path.join(outside, 'b.txt') } } },
        ],
      },
      { steps: [{ text: 'Read both.' }] },
    );
    expect((await prompt(e, sessionId, 'read both files')).stopReason).toBe('end_turn');
    const asked = e.permissions.map((p) => ({ id: p.toolCall.toolCallId, path: (p.toolCall.rawInput as { path?: string } | undefined)?.path }));
    expect(asked.sort((x, y) => x.id.localeCompare(y.id))).toEqual([
      { id: 'call_a', path: path.join(outside, 'a.txt') },
      { id: 'call_b', path: path.join(outside, 'b.txt') },
    ]);
  });
});
