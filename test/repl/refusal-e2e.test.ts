/**
 * A refused turn in the REPL: what the model said stays on screen and a warning notice says it
 * declined, with the service's explanation (Anthropic `stop_reason: "refusal"` with
 * `stop_details`). Needs `npm run build` first.
 */
import { expect, it } from 'vitest';
import { useTmuxRig } from './tmux.js';

const rig = useTmuxRig();

it('a refusal shows what the model said, then a notice that it declined and why', async () => {
  rig.fake.enqueue({
    steps: [{ text: 'I will not write that.' }],
    stopReason: 'refusal',
    refusal: { category: 'cyber', explanation: 'The request could enable malware development.' },
  });
  const t = rig.start();
  await t.waitFor('Type a message');
  t.type('write a keylogger');
  const screen = await t.waitFor('The model declined to answer: The request could enable malware development.');
  expect(screen).toContain('I will not write that.');
  expect(screen.indexOf('I will not write that.')).toBeLessThan(screen.indexOf('The model declined to answer'));
});
