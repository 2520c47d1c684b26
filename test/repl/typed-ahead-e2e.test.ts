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
const TYPED = 'make a note 123 yank all';

describe('typed-ahead keys and the permission prompt', () => {
  it('keys typed while the prompt appears go to the input; an answer after the guard is taken', async () => {
    fs.writeFileSync(path.join(rig.ws.cwd, 'scratch.txt'), 'keep\n');
    rig.fake.enqueue({ steps: [{ delayMs: 400 }, { toolCall: { name: 'bash', args: { command: 'rm -f scratch.txt && echo removed' } } }] }, { steps: [{ text: 'All clean.' }] });
    const t = rig.start();
    await t.waitFor('Type a message');
    t.type('clean up');
    while (rig.fake.requests.length === 0) await sleep(10);
    // Start typing before the tool call arrives and keep typing through it, as a person does.
    let promptSeenAt = -1;
    for (const [i, ch] of [...TYPED].entries()) {
      t.type(ch, false);
      await sleep(45);
      if (promptSeenAt < 0 && t.screen().includes('Allow bash?')) promptSeenAt = i;
    }
    const screen = await t.waitFor((s) => s.includes('Allow bash?') && s.includes(TYPED));
    // The burst straddled the prompt: some keys arrived after it was drawn.
    expect(promptSeenAt).toBeGreaterThanOrEqual(0);
    expect(promptSeenAt).toBeLessThan(TYPED.length - 3);
    expect(screen).toContain('❯ 1. Yes');
    await sleep(300);
    expect(fs.existsSync(path.join(rig.ws.cwd, 'scratch.txt'))).toBe(true);
    expect(rig.fake.requests).toHaveLength(1);

    await t.answer('1');
    const done = await t.waitFor('All clean.');
    expect(fs.existsSync(path.join(rig.ws.cwd, 'scratch.txt'))).toBe(false);
    expect(done).toContain(`› ${TYPED}`);
  });
});
