/**
 * A running bash command's card in a real terminal (tmux): it shows what the command printed so
 * far, and Ctrl+C keeps that on the card. Needs `npm run build` first.
 */
import { describe, expect, it } from 'vitest';
import { afterToolResult } from './fake-requests.js';
import { useTmuxRig } from './tmux.js';

const rig = useTmuxRig();

describe('a bash card while the command runs', () => {
  it('streams the last lines printed, and Ctrl+C keeps them', async () => {
    const command = 'for i in 1 2 3 4; do echo "step-$i done"; done; sleep 300';
    rig.fake.setResponder((req) => (afterToolResult(req) ? { steps: [{ text: 'Stopped.' }] } : { steps: [{ toolCall: { name: 'bash', args: { command } } }] }));
    const t = rig.start({ args: ['--yolo'] });
    await t.waitFor('Type a message');
    t.type('run the steps');
    // The command is still sleeping: only the live card can show its lines.
    const running = await t.waitFor((s) => s.includes('step-4 done') && s.includes('running…'));
    expect(running).toMatch(/⎿ step-2 done\n +step-3 done\n +step-4 done/);
    expect(running).not.toContain('step-1 done');
    t.keys('C-c');
    const after = await t.waitFor((s) => s.includes('Interrupted'));
    expect(after).toContain('step-4 done');
    expect(after).toMatch(/step-1 done[ │]*\n│ step-2 done[\s\S]*step-4 done[ │]*\n│ cancelled/);
    t.type('/exit');
    await t.waitFor('[keen exited');
  });
});
