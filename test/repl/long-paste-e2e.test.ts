/**
 * Issue 26: a long paste is collapsed in the input and in the transcript
 * (`[Pasted text #1 +289 lines]`) and sent whole. In a real terminal (tmux), pasted the way a
 * terminal pastes (bracketed).
 */
import { describe, expect, it } from 'vitest';
import { useTmuxRig } from './tmux.js';
import { paste } from './tmux-paste.js';

const rig = useTmuxRig();

function lastUserText(body: { messages: { role: string; content: string | { type: string; text?: string }[] }[] }): string {
  const m = body.messages.filter((x) => x.role === 'user').at(-1)!;
  return typeof m.content === 'string' ? m.content : m.content.map((c) => c.text ?? '').join('');
}

describe('a long paste', () => {
  it('shows as one label in the input and the transcript, and reaches the model whole', async () => {
    const lines = Array.from({ length: 289 }, (_, i) => `log line ${i + 1} of the build`);
    rig.fake.enqueue({ steps: [{ text: 'Read all 289 lines.' }] });
    const t = rig.start();
    await t.waitFor(/context · session/);
    t.type('look at this: ', false);
    paste(t, lines.join('\n'));
    const input = await t.waitFor('[Pasted text #1 +289 lines]');
    expect(input).toContain('› look at this: [Pasted text #1 +289 lines]');
    expect(input).not.toContain('log line 200');
    t.type(' and summarise', false);
    await t.waitFor('[Pasted text #1 +289 lines] and summarise');
    t.keys('Enter');
    const done = await t.waitFor('Read all 289 lines.');
    expect(done).toContain('› look at this: [Pasted text #1 +289 lines] and summarise');
    expect(done).not.toContain('log line 2 of the build');
    expect(lastUserText(rig.fake.requests[0].body)).toBe(`look at this: ${lines.join('\n')} and summarise`);
  });

  it('a short paste stays as text', async () => {
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });
    const t = rig.start();
    await t.waitFor(/context · session/);
    paste(t, 'one\ntwo\nthree');
    await t.waitFor('three');
    t.keys('Enter');
    await t.waitFor('● ok');
    expect(lastUserText(rig.fake.requests[0].body)).toBe('one\ntwo\nthree');
  });
});
