/**
 * A retry wait in the REPL is a warning notice above the answer (from the turn's own
 * `retry_wait` event). Needs `npm run build` first.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { TmuxKeen } from './tmux.js';

let fake: ScriptedServer;
let ws: Workspace;
let t: TmuxKeen | undefined;

beforeEach(async () => {
  fake = await startAnthropicFake();
  ws = tempWorkspace();
});

afterEach(async () => {
  t?.kill();
  await fake.close();
  ws.cleanup();
});

it('shows the retry wait as a notice, then the answer', async () => {
  fake.enqueue({ error: { status: 429, message: 'slow down' } }, { steps: [{ text: 'Answered after the wait.' }] });
  t = TmuxKeen.start({ cwd: ws.cwd, args: [], env: { KEEN_HOME: ws.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url } });
  await t.waitFor('Type a message');
  t.type('hello');
  const screen = await t.waitFor('Answered after the wait.');
  expect(screen).toMatch(/127\.0\.0\.1:\d+ answered 429; retrying in [\d.]+ s \(retry 1 of 2; Ctrl\+C stops\)/);
  expect(screen.indexOf('answered 429')).toBeLessThan(screen.indexOf('Answered after the wait.'));
  expect(fake.requests).toHaveLength(2);
});
