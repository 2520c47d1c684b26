/**
 * The live frame never reaches the terminal's height, in a real terminal (tmux, 80×24). When Ink's
 * frame is as tall as the terminal, Ink clears the screen and the scrollback and reprints its own
 * record of `<Static>` output on every frame: lines printed before keen started and a resumed
 * session's plain-scrollback replay were wiped. Needs `npm run build`.
 */
import { describe, expect, it } from 'vitest';
import type { FakeStep } from '../fakes/script.js';
import { afterToolResult } from './fake-requests.js';
import { question, writeLongSession } from './long-session.js';
import { type TmuxKeen, useTmuxRig } from './tmux.js';

const ROWS = 24;
/** A replay long enough to be written as plain scrollback at 24 rows. */
const TURNS = 8;
const HISTORY = 1990;
const BEFORE = ['LINE-BEFORE-KEEN one', 'LINE-BEFORE-KEEN two'];
const ITEMS = 50;
const item = (i: number, round = 0) => `${round ? 'entry' : 'item'} ${i} of the long list`;

/** The fake's answer: a list of ITEMS items in chunks (held live while it grows, frame after frame). */
function listAnswer(round: number): FakeStep[] {
  const items = Array.from({ length: ITEMS }, (_, i) => `- ${item(i, round)}\n`);
  const steps: FakeStep[] = [{ text: `Here is list ${round}:\n\n` }];
  for (let i = 0; i < ITEMS; i += 5) steps.push({ text: items.slice(i, i + 5).join('') }, { delayMs: 15 });
  steps.push({ text: `\nThat was the whole list${round ? ` (round ${round})` : ''}.` });
  return steps;
}

const rig = useTmuxRig();

/** Each of `parts` exactly once, in this order. */
function onceInOrder(text: string, parts: string[]): boolean {
  let at = -1;
  for (const part of parts) {
    const next = text.indexOf(part, at + 1);
    if (next <= at || text.indexOf(part, next + 1) >= 0) return false;
    at = next;
  }
  return true;
}

/** Each of `parts` in this order (repeats allowed). */
function inOrder(text: string, parts: string[]): boolean {
  let at = -1;
  for (const part of parts) {
    at = text.indexOf(part, at + 1);
    if (at < 0) return false;
  }
  return true;
}

function history(test: (all: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
  return rig.t!.waitForScrollback(test, { lines: HISTORY, what, timeoutMs });
}

const idle = (s: string) => s.includes('Type a message') && !/Thinking|Responding|Running/.test(s.split('\n').slice(-8).join('\n'));
let questions: string[] = [];

/**
 * keen --resume of a `turns`-turn session, after `before` lines were printed in the pane. A long
 * replay (8 turns) is plain scrollback written by keen (its background fill clears the terminal's
 * scrollback once, by design); a short one (2 turns) goes through `<Static>`.
 */
async function startResumed(turns: number, before: string[]): Promise<{ id: string; t: TmuxKeen }> {
  questions = Array.from({ length: turns }, (_, i) => question(i));
  const id = await writeLongSession({ home: rig.ws.home, cwd: rig.ws.cwd, turns });
  const t = rig.start({
    args: ['--resume', id],
    width: 80,
    height: ROWS,
    before,
  });
  await history((s) => onceInOrder(s, [...before, ...questions, `Resumed session ${id}`]) && idle(s), 'the replay');
  return { id, t };
}

describe('the live frame in a 24-row terminal', () => {
  it('a list longer than the terminal streams without wiping the scrollback, and lands in it once, in order', async () => {
    let round = 0;
    rig.fake.setResponder(() => ({ steps: listAnswer(round++) }));
    const { id, t } = await startResumed(TURNS, []);

    t.type('list them');
    const parts = [...questions, `Resumed session ${id}`, 'list them', 'Here is list 0:', ...Array.from({ length: ITEMS }, (_, i) => item(i)), 'That was the whole list.'];
    const all = await history((s) => s.includes('That was the whole list.') && idle(s), 'the answer');
    expect(onceInOrder(all, parts), all.slice(-3000)).toBe(true);

    // A shorter terminal (same width: nothing is redrawn): the bound follows the new height.
    t.resize(80, 14);
    await t.waitFor((s) => idle(s) && s.includes('That was the whole list.'));
    t.type('once more');
    const more = ['once more', 'Here is list 1:', ...Array.from({ length: ITEMS }, (_, i) => item(i, 1)), 'That was the whole list (round 1).'];
    const again = await history((s) => s.includes('That was the whole list (round 1).') && idle(s), 'the second answer');
    expect(onceInOrder(again, [...parts, ...more]), again.slice(-3000)).toBe(true);
  });

  it('a permission prompt with a diff longer than the terminal keeps its question and answers on screen; the whole diff is in the scrollback', async () => {
    const lines = Array.from({ length: 60 }, (_, i) => `content line ${i}`);
    rig.fake.setResponder((req) =>
      afterToolResult(req) ? { steps: [{ text: 'Written.' }] } : { steps: [{ toolCall: { name: 'write_file', args: { path: 'long.txt', content: `${lines.join('\n')}\n` } } }] },
    );
    const { id, t } = await startResumed(2, BEFORE);
    t.type('write it');
    const prompt = await t.waitFor((s) => s.includes('Allow write_file?') && s.includes('3. No'));
    const screen = t.screen();
    expect(screen).toContain('Allow write_file?');
    expect(screen).toContain('1. Yes');
    expect(screen).toContain('enter confirm');
    expect(screen.replace(/\n$/, '').split('\n').length).toBeLessThanOrEqual(ROWS);
    expect(prompt).toContain('LINE-BEFORE-KEEN one');
    // Every line of the diff is readable in the scrollback before answering.
    const asking = await history(
      (s) => onceInOrder(s, [...BEFORE, ...questions, `Resumed session ${id}`]) && inOrder(s, ['write it', ...lines.map((l) => `+${l}`)]),
      'the whole diff',
    );
    expect(asking).toContain('Allow write_file?');

    await t.answer('1');
    const all = await history((s) => s.includes('Written.') && idle(s), 'the answer');
    expect(onceInOrder(all, [...BEFORE, ...questions, `Resumed session ${id}`, 'write it', '+content line 59', 'Written.'])).toBe(true);
  });

  it('a bash command longer than the terminal: the question and the answers stay on screen, the whole command is in the scrollback', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `echo "command line ${i}"`);
    rig.fake.setResponder((req) => (afterToolResult(req) ? { steps: [{ text: 'Ran it.' }] } : { steps: [{ toolCall: { name: 'bash', args: { command: lines.join('\n') } } }] }));
    const { t } = await startResumed(2, BEFORE);
    t.type('run it');
    await t.waitFor((s) => s.includes('Allow bash?') && s.includes('3. No'));
    const screen = t.screen();
    for (const text of ['Allow bash?', '1. Yes', '2. Yes, and allow', 'enter confirm']) expect(screen).toContain(text);
    expect(screen.replace(/\n$/, '').split('\n').length).toBeLessThanOrEqual(ROWS);
    // Every line of the command is readable in the scrollback before answering.
    await history((s) => inOrder(s, ['run it', ...lines]) && s.includes('Allow bash?'), 'the whole command');
    await t.answer('3');
    await history((s) => idle(s), 'the denial');
  });

  it('a diff that fit when the prompt opened is written whole above it once the terminal shrinks', async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `note line ${i}`);
    rig.fake.setResponder((req) =>
      afterToolResult(req) ? { steps: [{ text: 'Noted.' }] } : { steps: [{ toolCall: { name: 'write_file', args: { path: 'notes.txt', content: `${lines.join('\n')}\n` } } }] },
    );
    const t = rig.start({ width: 80, height: 48 });
    await t.waitFor('Type a message');
    t.type('note it');
    await t.waitFor((s) => s.includes('Allow write_file?') && s.includes('+note line 19'));
    t.resize(80, 16);
    // The prompt now shows part of the diff; every line is in the scrollback above it.
    await history((s) => inOrder(s, ['note it', ...lines.map((l) => `+${l}`)]) && s.includes('(the whole diff is printed above)'), 'the whole diff above the prompt');
    expect(t.screen()).toContain('Allow write_file?');
    await t.answer('3');
    await history((s) => idle(s), 'the denial');
  });

  it('a paragraph longer than the terminal, streamed without a line break, keeps the lines printed before keen and lands once', async () => {
    const words = Array.from({ length: 500 }, (_, i) => `w${i}`);
    const steps: FakeStep[] = [];
    for (let i = 0; i < words.length; i += 50) steps.push({ text: `${words.slice(i, i + 50).join(' ')} ` }, { delayMs: 15 });
    steps.push({ text: 'END-OF-PARAGRAPH.' });
    rig.fake.setResponder(() => ({ steps }));
    const t = rig.start({
      width: 80,
      height: ROWS,
      before: BEFORE,
    });
    await t.waitFor((s) => idle(s) && s.includes('% context'));
    t.type('talk at length');
    const all = await history((s) => s.includes('END-OF-PARAGRAPH.') && idle(s), 'the answer');
    const tokens = all.split(/\s+/);
    const at = words.map((w) => tokens.indexOf(w));
    expect(
      at.every((i, k) => i >= 0 && (k === 0 || i > at[k - 1])),
      all.slice(-3000),
    ).toBe(true);
    expect(words.every((w) => tokens.filter((x) => x === w).length === 1)).toBe(true);
    expect(onceInOrder(all, [...BEFORE, 'talk at length', 'END-OF-PARAGRAPH.'])).toBe(true);
  });

  it('while a list taller than the terminal grows, the screen shows its tail under the marker; Ctrl+C commits all of it', async () => {
    // The stream stays open after the list (the fake waits a minute) until Ctrl+C ends the turn.
    rig.fake.setResponder(() => ({ steps: [...listAnswer(0).slice(0, -1), { delayMs: 60_000 }] }));
    const t = rig.start({
      width: 80,
      height: ROWS,
      before: BEFORE,
    });
    await t.waitFor((s) => idle(s) && s.includes('% context'));
    t.type('list them');
    const screen = await t.waitFor((s) => s.includes(item(ITEMS - 1)) && s.includes('lines above (in the scrollback once this block ends)'));
    expect(t.screen()).not.toContain(item(0));
    expect(screen).toContain('LINE-BEFORE-KEEN one');
    t.keys('C-c');
    const all = await history((s) => s.includes('Interrupted') && idle(s), 'the interrupted turn');
    expect(onceInOrder(all, [...BEFORE, 'list them', 'Here is list 0:', ...Array.from({ length: ITEMS }, (_, i) => item(i)), 'Interrupted']), all.slice(-3000)).toBe(true);
    expect(all).not.toContain('lines above (in the scrollback');
  });
});
