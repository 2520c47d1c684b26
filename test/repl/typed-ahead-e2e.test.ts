/**
 * Issue 26: keys typed ahead never answer a permission prompt. In a real terminal (tmux) the
 * user types the next message, one key at a time, while the agent's bash call arrives; the word
 * holds every answer key (a, n, y, 1, 2, 3). None may answer: the command must not run and the
 * text must stay in the input. A deliberate key after the guard answers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTmuxRig } from './tmux.js';

const rig = useTmuxRig();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Typed while the tool call is held back; then filler until the prompt is drawn, then AFTER. */
const BEFORE = 'make a note ';
/** Typed once the prompt is on screen: every answer key (a, n, y, 1, 2, 3). */
const AFTER = '123 yank all';

describe('typed-ahead keys and the permission prompt', () => {
  it('keys typed while the prompt appears go to the input; an answer after the guard is taken', async () => {
    fs.writeFileSync(path.join(rig.ws.cwd, 'scratch.txt'), 'keep\n');
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const call = { toolCall: { name: 'bash', args: { command: 'rm -f scratch.txt && echo removed' } } };
    rig.fake.enqueue({ until: held, steps: [call] }, { steps: [{ text: 'All clean.' }] });
    const t = rig.start({ width: 200 });
    await t.waitFor('Type a message');
    t.type('clean up');
    while (rig.fake.requests.length === 0) await sleep(10);
    // One key at a time, as a person types, straddling the prompt: the start while the call is
    // held back, then (the call let through) filler until the prompt is drawn, then answer keys.
    const key = async (ch: string) => {
      t.type(ch, false);
      await sleep(45);
    };
    for (const ch of BEFORE) await key(ch);
    release();
    let typed = BEFORE;
    for (; !t.screen().includes('Allow bash?'); typed += '.') await key('.');
    for (const ch of AFTER) await key(ch);
    typed += AFTER;
    const screen = await t.waitFor((s) => s.includes('Allow bash?') && s.includes(typed));
    expect(screen).toContain('❯ 1. Yes');
    await sleep(300);
    expect(fs.existsSync(path.join(rig.ws.cwd, 'scratch.txt'))).toBe(true);
    expect(rig.fake.requests).toHaveLength(1);

    await t.answer('1');
    const done = await t.waitFor('All clean.');
    expect(fs.existsSync(path.join(rig.ws.cwd, 'scratch.txt'))).toBe(false);
    expect(done).toContain(`› ${typed}`);
  });
});
