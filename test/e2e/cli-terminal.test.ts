/**
 * A mistyped command in a real terminal (tmux): `keen sesion list` is answered with "did you
 * mean" and exit 2 before the REPL starts, so nothing reaches the model; a first message that
 * only starts like a command (`keen hello there`) is still sent.
 */
import { describe, expect, it } from 'vitest';
import { useTmuxRig } from '../repl/tmux.js';

const rig = useTmuxRig();

describe('keen WORDS in a terminal', () => {
  it('`keen sesion list`: did you mean `keen sessions`, exit 2, no request', async () => {
    const t = rig.start({ args: ['sesion', 'list'] });
    const screen = await t.waitFor('[keen exited');
    expect(screen).toContain('keen: unknown command "sesion"; did you mean `keen sessions`?');
    expect(screen).toContain('[keen exited 2]');
    expect(rig.fake.requests).toHaveLength(0);
  });

  it('`keen hello there` starts the REPL with that first message', async () => {
    rig.fake.enqueue({ steps: [{ text: 'General Kenobi.' }] });
    const t = rig.start({ args: ['hello', 'there'] });
    await t.waitFor('General Kenobi.');
    expect(rig.fake.requests).toHaveLength(1);
    expect(JSON.stringify(rig.fake.requests[0].body?.messages)).toContain('hello there');
  });
});
