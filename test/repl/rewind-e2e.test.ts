/**
 * Issue 26: `/rewind` and `/undo` in a real terminal (tmux). Rewind restores the files and the
 * conversation exactly — also to before a compacted message —, draws the transcript again from
 * the rewound point and puts the rewound message back in the input; a new session has nothing to
 * rewind; a second `/undo` with nothing left says so.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/script.js';
import { afterToolResult, allText, isCompactionRequest, lastUserText, messagesOf, textOf } from './fake-requests.js';
import { useTmuxRig } from './tmux.js';

const rig = useTmuxRig();

/** "write X" makes the model write X into a.txt, then answer "wrote X"; a compaction gets a summary. */
function writer(req: RecordedRequest) {
  if (isCompactionRequest(req)) return { steps: [{ text: 'SUMMARY-OF-EARLIER-WORK' }] };
  const users = messagesOf(req).filter((m) => m.role === 'user' && textOf(m) !== '');
  const said = textOf(users[users.length - 1]);
  if (!said.startsWith('write ')) return { steps: [{ text: `answer to ${said}` }] };
  const word = said.replace(/^write /, '');
  return afterToolResult(req) ? { steps: [{ text: `wrote ${word}` }] } : { steps: [{ toolCall: { name: 'write_file', args: { path: 'a.txt', content: `${word}\n` } } }] };
}

describe('/rewind and /undo', () => {
  it('in a new session there is nothing to rewind (no raw file error)', async () => {
    const t = rig.start();
    await t.waitFor(/context · session/);
    t.type('/rewind');
    const screen = await t.waitFor('Nothing to rewind yet.');
    expect(screen).not.toContain('ENOENT');
  });

  it('draws the transcript from the rewound point and puts the message back in the input', async () => {
    fs.writeFileSync(path.join(rig.ws.cwd, 'a.txt'), 'v0\n');
    rig.fake.setResponder(writer);
    const t = rig.start({ args: ['--yolo'] });
    await t.waitFor(/context · session/);
    t.type('write first');
    await t.waitFor('wrote first');
    t.type('write second');
    await t.waitFor('wrote second');
    t.type('/rewind');
    await t.waitFor('Rewind to before which message?');
    t.keys('1'); // the newest message
    const screen = await t.waitFor((s) => /│ › write second\s*│/.test(s) && s.includes('Undid the file changes of 1 turn'));
    expect(fs.readFileSync(path.join(rig.ws.cwd, 'a.txt'), 'utf8')).toBe('first\n');
    expect(screen).toContain('wrote first');
    expect(screen).not.toContain('wrote second');
    expect(screen).not.toMatch(/^› write second/m);
    // Enter sends the message again, to a conversation that ends before it.
    t.keys('Enter');
    await t.waitFor('wrote second');
    const resent = rig.fake.requests.filter((r) => lastUserText(r) === 'write second').at(-1)!;
    expect(messagesOf(resent).filter((m) => m.role === 'user' && textOf(m) === 'write second')).toHaveLength(1);
  });

  it('a rewind to before a compacted message gives the model the conversation as it was then', async () => {
    fs.writeFileSync(path.join(rig.ws.cwd, 'a.txt'), 'v0\n');
    rig.fake.setResponder(writer);
    const t = rig.start({ args: ['--yolo'] });
    await t.waitFor(/context · session/);
    t.type('write first');
    await t.waitFor('wrote first');
    t.type('write second');
    await t.waitFor('wrote second');
    t.type('/compact');
    await t.waitFor('✓ Context compacted.');
    t.type('write third');
    await t.waitFor('wrote third');
    t.type('/rewind');
    await t.waitFor('Rewind to before which message?');
    t.keys('2'); // "write second", before the compaction
    await t.waitFor((s) => /│ › write second\s*│/.test(s));
    expect(fs.readFileSync(path.join(rig.ws.cwd, 'a.txt'), 'utf8')).toBe('first\n');
    t.keys('C-u');
    t.type('hello');
    await t.waitFor('answer to hello');
    const sent = rig.fake.requests.at(-1)!;
    expect(allText(sent)).toContain('write first');
    expect(allText(sent)).not.toContain('second');
    expect(allText(sent)).not.toContain('third');
    expect(allText(sent)).not.toContain('SUMMARY-OF-EARLIER-WORK');
  });

  it('an /undo with nothing left to undo says so', async () => {
    fs.writeFileSync(path.join(rig.ws.cwd, 'a.txt'), 'v0\n');
    rig.fake.setResponder(writer);
    const t = rig.start({ args: ['--yolo'] });
    await t.waitFor(/context · session/);
    t.type('write one');
    await t.waitFor('wrote one');
    t.type('write two');
    await t.waitFor('wrote two');
    t.type('/undo');
    await t.waitFor('Undid the file changes of 1 turn: restored a.txt.');
    expect(fs.readFileSync(path.join(rig.ws.cwd, 'a.txt'), 'utf8')).toBe('one\n');
    // The user puts the file back by hand: the next turn to undo has nothing left to change.
    fs.writeFileSync(path.join(rig.ws.cwd, 'a.txt'), 'v0\n');
    t.type('/undo');
    const first = await t.waitFor(/Nothing to undo: the files turn \d+ changed are already as they were/);
    expect(first).not.toContain('nothing left to change');
    t.type('/undo');
    await t.waitFor(/Nothing to undo: no turn of this session/);
    expect(fs.readFileSync(path.join(rig.ws.cwd, 'a.txt'), 'utf8')).toBe('v0\n');
  });
});
