/**
 * A retry wait in the REPL is a warning notice above the answer (from the turn's own
 * `retry_wait` event). Needs `npm run build` first.
 */
import { expect, it } from 'vitest';
import { useTmuxRig } from './tmux.js';

const rig = useTmuxRig();

it('shows the retry wait as a notice, then the answer', async () => {
  rig.fake.enqueue({ error: { status: 429, message: 'slow down' } }, { steps: [{ text: 'Answered after the wait.' }] });
  const t = rig.start();
  await t.waitFor('Type a message');
  t.type('hello');
  const screen = await t.waitFor('Answered after the wait.');
  expect(screen).toMatch(/127\.0\.0\.1:\d+ answered 429; retrying in [\d.]+ s \(retry 1 of 2; Ctrl\+C stops\)/);
  expect(screen.indexOf('answered 429')).toBeLessThan(screen.indexOf('Answered after the wait.'));
  expect(rig.fake.requests).toHaveLength(2);
});
