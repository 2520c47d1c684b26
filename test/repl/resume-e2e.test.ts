/**
 * `keen --resume` of a long session in a real terminal (tmux): the replay is written as plain
 * scrollback (the last screens at once, the rest in the background) and must hold every turn
 * once, in order, wrapped at the terminal's width — also after a resize. Needs `npm run build`.
 */
import stringWidth from 'string-width';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeWorkspace, type Workspace } from '../e2e/harness.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { question, writeLongSession } from './long-session.js';
import { TmuxKeen } from './tmux.js';

const TURNS = 80;
/** More than the replay's lines at 60 columns, less than tmux's default history (2000). */
const HISTORY = 1990;

let fake: ScriptedServer;
let ws: Workspace;
let t: TmuxKeen | undefined;

beforeEach(async () => {
  fake = await startAnthropicFake();
  ws = makeWorkspace();
});

afterEach(async () => {
  t?.kill();
  t = undefined;
  await fake.close();
  ws.cleanup();
});

/** Every turn's question once, in the order of the turns, and `after` once after the last. */
function inOrder(text: string, after?: string): boolean {
  let at = -1;
  for (let turn = 0; turn < TURNS; turn++) {
    const next = text.indexOf(question(turn), at + 1);
    if (next <= at || text.indexOf(question(turn), next + 1) >= 0) return false;
    at = next;
  }
  if (after === undefined) return true;
  const end = text.indexOf(after, at);
  return end > at && text.indexOf(after, end + 1) < 0;
}

const widest = (text: string) => Math.max(...text.split('\n').map((l) => stringWidth(l)));

/** Polls the whole scrollback until `test` holds. */
async function history(test: (all: string) => boolean, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const all = t!.capture(false, HISTORY);
    if (test(all)) return all;
    if (Date.now() > deadline) throw new Error(`timed out; scrollback (${all.split('\n').length} lines) ends:\n${all.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('keen --resume of a long session in a terminal', () => {
  it('shows every turn once and in order in the scrollback, takes a prompt, and re-wraps all of it on resize', async () => {
    const id = await writeLongSession({ home: ws.home, cwd: ws.cwd, turns: TURNS, compactEvery: 30 });
    fake.setResponder(() => ({ steps: [{ text: 'Continued where we left off.' }] }));
    t = TmuxKeen.start({
      cwd: ws.cwd,
      args: ['--resume', id],
      env: { KEEN_HOME: ws.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url, NO_COLOR: undefined },
    });
    const screen = await t.waitFor((s) => s.includes(`Resumed session ${id}`) && s.includes('Type a message'));
    expect(screen).toContain(question(TURNS - 1));

    // The older turns arrive in the scrollback in the background, each once, before the last.
    const all = await history((s) => inOrder(s, `Resumed session ${id}`));
    expect(all).toContain('keen ');
    expect(all.indexOf('Fix the parser (summary after turn 29).')).toBeGreaterThan(all.indexOf(question(29)));
    expect(all.indexOf('Fix the parser (summary after turn 29).')).toBeLessThan(all.indexOf(question(30)));
    expect(widest(all)).toBeLessThanOrEqual(100);

    t.type('go on');
    await t.waitFor('Continued where we left off.');
    expect(fake.requests).toHaveLength(1);

    t.resize(60, 30);
    // Wrapped lines are joined in the capture: a line wider than 60 was wrapped at the old width.
    const narrow = await history((s) => inOrder(s, 'Continued where we left off.') && widest(s) <= 60 && s.includes(`╭${'─'.repeat(58)}╮`));
    expect(narrow.indexOf('Continued where we left off.')).toBeGreaterThan(narrow.indexOf(`Resumed session ${id}`));
    t.type('/exit');
    await t.waitFor('[keen exited 0]');
  });
});
