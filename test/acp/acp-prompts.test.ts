/**
 * What an ACP prompt carries and what comes back beside the answer: embedded resources and
 * resource links as the model's user text, a binary resource refused in one line, the model's
 * reasoning as thought chunks, "allow for this session" answering every later question, and the
 * project's custom commands and skills offered after `/` and expanded when typed.
 * The ACP SDK's client side drives a spawned `bin/keen.js acp` against the Anthropic wire fake.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { userTexts } from '../e2e/cli-fixtures.js';
import { waitFor } from '../e2e/mcp-fixtures.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';
import { type Editor, editorSuite, prompt, texts } from './editor-client.js';

const suite = editorSuite();
const editor = suite.editor.bind(suite);

const newSession = (e: Editor, ws: Workspace) => e.agent.request(acp.methods.agent.session.new, { cwd: ws.cwd, mcpServers: [] });

describe('keen acp: prompt content', () => {
  it('an embedded resource reaches the model as a <file> block, a resource link as a [file: …] line', async () => {
    const ws = tempWorkspace({ 'spec.md': 'on disk\n' });
    const e = await editor(ws);
    const { sessionId } = await newSession(e, ws);
    const buffer = path.join(ws.cwd, 'draft.ts');
    const linked = path.join(ws.cwd, 'spec.md');
    suite.fake.enqueue({ steps: [{ text: 'Read them.' }] });
    const from = suite.fake.requests.length;
    const r = await e.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [
        { type: 'text', text: 'review these' },
        { type: 'resource', resource: { uri: `file://${buffer}`, text: 'export const unsaved = 1;', mimeType: 'text/x-typescript' } },
        { type: 'resource_link', uri: `file://${linked}`, name: 'spec.md' },
      ],
    });
    expect(r.stopReason).toBe('end_turn');
    expect(userTexts(suite.fake.requests[from]).at(-1)).toBe(`review these\n\n<file path="${buffer}">\nexport const unsaved = 1;\n</file>\n\n[file: ${linked}]`);
  });

  it('a binary resource fails the prompt with one line naming it, and nothing is sent', async () => {
    const ws = tempWorkspace();
    const e = await editor(ws);
    const { sessionId } = await newSession(e, ws);
    const file = path.join(ws.cwd, 'logo.bin');
    const from = suite.fake.requests.length;
    const sent = e.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [
        { type: 'text', text: 'what is this?' },
        { type: 'resource', resource: { uri: `file://${file}`, blob: Buffer.from([0, 1, 2, 255]).toString('base64'), mimeType: 'application/octet-stream' } },
      ],
    });
    await expect(sent).rejects.toThrow(`cannot send binary resource ${file}`);
    await expect(sent).rejects.not.toThrow(/\n\s+at /);
    expect(suite.fake.requests.length).toBe(from);
  });
});

describe('keen acp: reasoning and permissions', () => {
  it("the model's thinking streams as agent_thought_chunk, apart from the answer", async () => {
    const ws = tempWorkspace();
    const e = await editor(ws);
    const { sessionId } = await newSession(e, ws);
    suite.fake.enqueue({ steps: [{ thinking: 'The user wants a greeting; keep it short.' }, { text: 'Hi.' }] });
    expect((await prompt(e, sessionId, 'greet me')).stopReason).toBe('end_turn');
    expect(texts(e.updates, 'agent_thought_chunk')).toBe('The user wants a greeting; keep it short.');
    expect(texts(e.updates, 'agent_message_chunk')).toBe('Hi.');
    const kinds = e.updates.map((u) => u.sessionUpdate).filter((k) => k === 'agent_thought_chunk' || k === 'agent_message_chunk');
    expect(kinds.indexOf('agent_message_chunk')).toBeGreaterThan(kinds.lastIndexOf('agent_thought_chunk'));
  });

  it('"allow for this session" answers the later edits too: two edits, one question', async () => {
    const ws = tempWorkspace({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const e = await editor(ws);
    const { sessionId } = await newSession(e, ws);
    e.answer = 'session';
    suite.fake.enqueue(
      { steps: [{ toolCall: { id: 'e1', name: 'edit_file', args: { path: 'a.txt', old_string: 'a', new_string: 'A' } } }] },
      { steps: [{ toolCall: { id: 'e2', name: 'edit_file', args: { path: 'b.txt', old_string: 'b', new_string: 'B' } } }] },
      { steps: [{ text: 'Both edited.' }] },
    );
    expect((await prompt(e, sessionId, 'capitalise both')).stopReason).toBe('end_turn');
    expect(fs.readFileSync(path.join(ws.cwd, 'a.txt'), 'utf8')).toBe('A\n');
    expect(fs.readFileSync(path.join(ws.cwd, 'b.txt'), 'utf8')).toBe('B\n');
    expect(e.permissions.map((p) => p.toolCall.toolCallId)).toEqual(['e1']);
  });
});

describe('keen acp: custom commands and skills', () => {
  it("offers the project's command and skill in available_commands_update, and /name args reaches the model expanded", async () => {
    const ws = tempWorkspace({
      '.keen/commands/review.md': '---\ndescription: Review a file for bugs\n---\nReview $ARGUMENTS for bugs; list each with its line.\n',
      '.keen/skills/tidy/SKILL.md': '---\nname: tidy\ndescription: Tidy imports and names\n---\nSort the imports, then rename unclear names.\n',
    });
    const e = await editor(ws);
    const { sessionId } = await newSession(e, ws);
    await waitFor(() => e.updates.some((u) => u.sessionUpdate === 'available_commands_update'), 10_000, 'available_commands_update');
    const update = e.updates.find((u) => u.sessionUpdate === 'available_commands_update');
    const offered = update && 'availableCommands' in update ? update.availableCommands : [];
    expect(offered.map((c) => c.name)).toEqual(['compact', 'review', 'tidy']);
    expect(offered.find((c) => c.name === 'review')?.description).toBe('Review a file for bugs');
    expect(offered.find((c) => c.name === 'tidy')?.description).toBe('Tidy imports and names');

    suite.fake.enqueue({ steps: [{ text: 'No bugs.' }] }, { steps: [{ text: 'Tidied.' }] });
    const from = suite.fake.requests.length;
    await prompt(e, sessionId, '/review src/app.ts');
    expect(userTexts(suite.fake.requests[from]).at(-1)).toBe('Review src/app.ts for bugs; list each with its line.');
    await prompt(e, sessionId, '/tidy the parser');
    const skill = userTexts(suite.fake.requests[from + 1]).at(-1) ?? '';
    expect(skill).toContain('The user invoked the skill "tidy"');
    expect(skill).toContain('Sort the imports, then rename unclear names.');
    expect(skill).toContain('the parser');
  });
});
