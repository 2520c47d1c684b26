import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { afterToolResult, messagesOf, textOf } from './fake-requests.js';
import { startHarness, type ReplHarness } from './harness.js';

let h: ReplHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Each message "write X" makes the model write X into a.txt, then answer "wrote X". */
const writer = (req: Parameters<NonNullable<Parameters<typeof startHarness>[0]>['responder'] & object>[0]) => {
  const users = messagesOf(req).filter((m) => m.role === 'user' && textOf(m) !== '');
  const word = textOf(users[users.length - 1]).replace(/^write /, '');
  return afterToolResult(req) ? { steps: [{ text: `wrote ${word}` }] } : { steps: [{ toolCall: { name: 'write_file', args: { path: 'a.txt', content: `${word}\n` } } }] };
};

describe('/undo and /rewind', () => {
  it("/undo restores the last turn's files byte for byte, and refuses after a change behind Keen's back", async () => {
    h = await startHarness({ files: { 'a.txt': 'original\r\n' }, flags: { yolo: true }, responder: writer });
    const file = path.join(h.ws.cwd, 'a.txt');
    h.send('write one');
    await h.waitFor('wrote one');
    expect(readFileSync(file, 'utf8')).toBe('one\n');
    h.send('/undo');
    await h.waitFor('Undid the file changes of 1 turn: restored a.txt.');
    expect(readFileSync(file, 'utf8')).toBe('original\r\n');

    h.send('write two');
    await h.waitFor('wrote two');
    writeFileSync(file, 'mine\n');
    h.send('/undo');
    const refused = await h.waitFor('refusing to undo');
    expect(refused.replace(/\s+/g, ' ')).toContain('refusing to undo: a.txt changed outside Keen since Keen wrote it; nothing was changed (use /undo --force to overwrite)');
    expect(readFileSync(file, 'utf8')).toBe('mine\n');
  });

  it('/rewind picks a message and restores files and the conversation to before it', async () => {
    h = await startHarness({ files: { 'a.txt': 'v0\n' }, flags: { yolo: true }, responder: writer });
    const file = path.join(h.ws.cwd, 'a.txt');
    h.send('write first');
    await h.waitFor('wrote first');
    h.send('write second');
    await h.waitFor('wrote second');
    h.send('/rewind');
    await h.waitFor('Rewind to before which message?');
    h.write('2'); // the older of the two messages
    await h.waitFor('Undid the file changes of 2 turns: restored a.txt.');
    expect(readFileSync(file, 'utf8')).toBe('v0\n');
    await h.waitFor((f) => h!.runtime.busy === false && f.includes('Undid'));
    // The rewound message is back in the input; clear it (Ctrl+U) to send another.
    expect(h.runtime.store.getState().editor.text).toBe('write first');
    h.write('\x15');
    const before = h.fake.requests.length;
    h.send('write third');
    await h.waitFor('wrote third');
    const sent = h.fake.requests[before].body.messages as { role: string; content: unknown }[];
    expect(JSON.stringify(sent)).not.toContain('first');
    expect(JSON.stringify(sent)).not.toContain('second');
  });
});

describe('/permissions and Shift+Tab', () => {
  it('Shift+Tab cycles the mode shown in the footer, and acceptEdits then edits without asking', async () => {
    h = await startHarness({ files: { 'a.txt': 'v0\n' }, responder: writer });
    await h.waitFor('session <id>');
    expect(h.frame()).not.toContain('acceptEdits');
    h.write('\x1b[Z');
    await h.waitFor('session <id> · acceptEdits');
    h.send('write edited');
    await h.waitFor('wrote edited');
    expect(h.frame()).not.toContain('Allow write_file?');
    expect(readFileSync(path.join(h.ws.cwd, 'a.txt'), 'utf8')).toBe('edited\n');
  });

  it('/permissions shows the rules and adds one for the session; a bad rule is one line', async () => {
    h = await startHarness({ files: { 'a.txt': 'v0\n' }, responder: writer });
    h.send('/permissions deny write_file(a.txt)');
    await h.waitFor('Added deny rule write_file(a.txt) for this session.');
    h.send('/permissions');
    const frame = await h.waitFor('write_file(a.txt)  (session)');
    expect(frame).toContain('mode: default');
    h.send('/permissions allow bash(x');
    await h.waitFor('invalid permission rule "bash(x"');
    h.send('write nope');
    await h.waitFor('wrote nope');
    expect(readFileSync(path.join(h.ws.cwd, 'a.txt'), 'utf8')).toBe('v0\n');
  });
});
