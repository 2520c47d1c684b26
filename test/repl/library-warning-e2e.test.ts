/**
 * A warning the Anthropic SDK gives (a deprecated model) is one warning notice in the REPL, not
 * raw text torn into the screen, and it is shown once for the session. Needs `npm run build` first.
 */
import { expect, it } from 'vitest';
import { useTmuxRig } from './tmux.js';

const rig = useTmuxRig();

it("shows the SDK's deprecated-model warning once, as a notice", async () => {
  rig.fake.enqueue({ steps: [{ text: 'First answer.' }] }, { steps: [{ text: 'Second answer.' }] });
  const t = rig.start({ args: ['--model', 'claude-sonnet-4-5'] });
  await t.waitFor('Type a message');
  t.type('hello');
  await t.waitFor('First answer.');
  t.type('again');
  const screen = await t.waitFor('Second answer.');
  expect(rig.fake.requests).toHaveLength(2);
  expect(screen.match(/Anthropic: The model 'claude-sonnet-4-5' is deprecated/g)).toHaveLength(1);
  // The SDK's own two-line text never reaches the screen raw.
  expect(screen).not.toMatch(/^The model 'claude-sonnet-4-5'/m);
  expect(screen).not.toMatch(/^Please migrate/m);
});
