/**
 * A warning the Anthropic SDK gives (a deprecated model) is one warning notice in the REPL, not
 * raw text torn into the screen, and it is shown once for the session. Needs `npm run build` first.
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

it("shows the SDK's deprecated-model warning once, as a notice", async () => {
  fake.enqueue({ steps: [{ text: 'First answer.' }] }, { steps: [{ text: 'Second answer.' }] });
  const env = { KEEN_HOME: ws.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url };
  t = TmuxKeen.start({ cwd: ws.cwd, args: ['--model', 'claude-sonnet-4-5'], env });
  await t.waitFor('Type a message');
  t.type('hello');
  await t.waitFor('First answer.');
  t.type('again');
  const screen = await t.waitFor('Second answer.');
  expect(fake.requests).toHaveLength(2);
  expect(screen.match(/Anthropic: The model 'claude-sonnet-4-5' is deprecated/g)).toHaveLength(1);
  // The SDK's own two-line text never reaches the screen raw.
  expect(screen).not.toMatch(/^The model 'claude-sonnet-4-5'/m);
  expect(screen).not.toMatch(/^Please migrate/m);
});
