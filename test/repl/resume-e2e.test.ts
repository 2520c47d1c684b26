/**
 * `keen --resume` of a long session in a real terminal (tmux): the replay is written as plain
 * scrollback (the last screens at once, the rest in the background) and must hold every turn
 * once, in order, wrapped at the terminal's width — also after a resize. Needs `npm run build`.
 */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { question, writeLongSession } from './long-session.js';
import { useTmuxRig } from './tmux.js';

const TURNS = 80;
/** More than the replay's lines at 60 columns, less than tmux's default history (2000). */
const HISTORY = 1990;

const rig = useTmuxRig();

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
function history(test: (all: string) => boolean, timeoutMs = 20_000): Promise<string> {
  return rig.t!.waitForScrollback(test, { lines: HISTORY, timeoutMs });
}

describe('keen --resume of a long session in a terminal', () => {
  it('shows every turn once and in order in the scrollback, takes a prompt, and re-wraps all of it on resize', async () => {
    const id = await writeLongSession({ home: rig.ws.home, cwd: rig.ws.cwd, turns: TURNS, compactEvery: 30 });
    rig.fake.setResponder(() => ({ steps: [{ text: 'Continued where we left off.' }] }));
    const t = rig.start({
      args: ['--resume', id],
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
    expect(rig.fake.requests).toHaveLength(1);

    t.resize(60, 30);
    // Wrapped lines are joined in the capture: a line wider than 60 was wrapped at the old width.
    const narrow = await history((s) => inOrder(s, 'Continued where we left off.') && widest(s) <= 60 && s.includes(`╭${'─'.repeat(58)}╮`));
    expect(narrow.indexOf('Continued where we left off.')).toBeGreaterThan(narrow.indexOf(`Resumed session ${id}`));
    t.type('/exit');
    await t.waitFor('[keen exited 0]');
  });
});
