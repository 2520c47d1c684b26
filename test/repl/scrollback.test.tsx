/**
 * A long replay written as plain scrollback (scrollback.ts): the text it writes must be what
 * `<Static>` prints for the same items — every item once, in order, wrapped at the terminal's
 * width — on the first draw, after a resize, and after a resize back (from the cache).
 */
import { EventEmitter } from 'node:events';
import { render, renderToString, Static } from 'ink';
import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../src/repl/app.js';
import { TRANSCRIPT_STYLE, TranscriptItemView } from '../../src/repl/components/transcript-item.js';
import { replayItems } from '../../src/repl/replay.js';
import { RENDER_MAX_FPS } from '../../src/repl/render-options.js';
import { ReplRuntime } from '../../src/repl/runtime.js';
import { renderItems, Scrollback } from '../../src/repl/scrollback.js';
import { initialUiState } from '../../src/repl/state/ui-reducer.js';
import type { NewItem, TranscriptItem } from '../../src/repl/state/ui-state.js';
import { createUiStore, type UiStore } from '../../src/repl/state/ui-store.js';
import { CLEAR_SCREEN } from '../../src/repl/terminal.js';
import { SessionStore } from '../../src/transcript/store.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';
import { question, writeLongSession } from './long-session.js';

const TURNS = 60;
let ws: Workspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

/** What `<Static>` prints for `items` at `columns` (Ink's live renderer ends it with a newline; renderToString drops it). */
function staticText(items: readonly TranscriptItem[], columns: number): string {
  return (
    renderToString(
      <Static items={[...items]} style={TRANSCRIPT_STYLE}>
        {(item) => <TranscriptItemView key={item.id} item={item} />}
      </Static>,
      { columns },
    ) + '\n'
  );
}

interface Terminal {
  columns: number;
  rows: number;
  writes: string[];
  store: UiStore;
  scrollback: Scrollback;
  /** The next write that starts with a clear screen (a whole transcript or a tail). */
  nextClear(from: number): Promise<string>;
}

async function resumed(turns = TURNS): Promise<Terminal> {
  ws = tempWorkspace();
  const id = await writeLongSession({ home: ws.home, cwd: ws.cwd, turns, compactEvery: 25 });
  const opened = await SessionStore.open(ws.home, ws.cwd, id);
  const records = opened.records;
  await opened.store.close();
  const store = createUiStore(initialUiState({ items: [{ kind: 'banner', id: 1, version: 'test', cwd: '/project' }] }));
  const term: Terminal = {
    columns: 100,
    rows: 20,
    writes: [],
    store,
    scrollback: undefined as unknown as Scrollback,
    async nextClear(from) {
      for (;;) {
        const hit = term.writes.slice(from).find((w) => w.startsWith(CLEAR_SCREEN));
        if (hit !== undefined) return hit.slice(CLEAR_SCREEN.length);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
  };
  term.scrollback = new Scrollback({ columns: () => term.columns, rows: () => term.rows, items: () => store.getState().items });
  term.scrollback.attach((data) => term.writes.push(data));
  // What the runtime does with a replay (session-switch.ts `install`).
  const items = replayItems(records);
  const taken = term.scrollback.take(items);
  store.dispatch({ type: 'append', items, scrollback: taken ? items.length : 0 });
  expect(taken).toBe(true);
  return term;
}

/** Positions of every turn's question in `text`: each present once, in order. */
function expectEveryTurnOnceInOrder(text: string, turns = TURNS): void {
  let at = -1;
  for (let t = 0; t < turns; t++) {
    const q = question(t);
    const next = text.indexOf(q, at + 1);
    expect(next, `turn ${t} missing or out of order`).toBeGreaterThan(at);
    expect(text.indexOf(q, next + 1), `turn ${t} twice`).toBe(-1);
    at = next;
  }
}

const widest = (text: string) => Math.max(...text.split('\n').map((l) => stringWidth(l)));

describe('a long replay as plain scrollback', () => {
  it('writes the last screens at once, then the whole transcript exactly as <Static> prints it', async () => {
    const term = await resumed();
    // First write: only the tail (about two screens), ending with the last turn.
    const tail = term.writes[0];
    expect(tail.startsWith(CLEAR_SCREEN)).toBe(false);
    expect(tail).toContain(question(TURNS - 1));
    expect(tail).not.toContain(question(0));
    expect(tail.split('\n').length).toBeLessThan(term.rows * 3);

    const whole = await term.nextClear(1);
    const items = term.store.getState().items;
    expect(whole).toBe(staticText(items, 100));
    expectEveryTurnOnceInOrder(whole);
    // Compaction summaries, their markers and model switches keep their places.
    expect(whole.indexOf('Fix the parser (summary after turn 24).')).toBeGreaterThan(whole.indexOf(question(24)));
    expect(whole.indexOf('Fix the parser (summary after turn 24).')).toBeLessThan(whole.indexOf(question(25)));
    expect(whole.split('✓ Context compacted.').length - 1).toBe(2);
    expect(whole.indexOf('· Model: anthropic/claude-haiku-4-5')).toBeLessThan(whole.indexOf(question(50)));
    expect(whole.indexOf('· Model: anthropic/claude-haiku-4-5')).toBeGreaterThan(whole.indexOf(question(49)));
    expect(widest(whole)).toBeLessThanOrEqual(100);
  });

  it('a resize rewrites everything at the new width, and a resize back writes the same text as before', async () => {
    const term = await resumed();
    const at100 = await term.nextClear(1);

    term.columns = 60;
    const from = term.writes.length;
    const done = term.scrollback.redraw({ tailFirst: true });
    // The screen is right at once: the last screens at 60 columns.
    const tail = term.writes[from];
    expect(tail.startsWith(CLEAR_SCREEN)).toBe(true);
    expect(tail).toContain(question(TURNS - 1));
    expect(widest(tail)).toBeLessThanOrEqual(60);
    await done;
    const at60 = term.writes.at(-1)!.slice(CLEAR_SCREEN.length);
    expect(at60).toBe(staticText(term.store.getState().items, 60));
    expectEveryTurnOnceInOrder(at60);
    expect(widest(at60)).toBeLessThanOrEqual(60);
    // The long answer line wraps at 60, not at 100.
    const lineOf = (text: string) => text.split('\n').find((l) => l.includes('Turn 3 answer:'))!;
    expect(stringWidth(lineOf(at100))).toBeGreaterThan(60);
    expect(stringWidth(lineOf(at60))).toBeLessThanOrEqual(60);
    expect(at60.split('\n').length).toBeGreaterThan(at100.split('\n').length);

    term.columns = 100;
    const back = term.writes.length;
    await term.scrollback.redraw({ tailFirst: true });
    expect(term.writes.slice(back)).toEqual([CLEAR_SCREEN + at100]);
  });

  it('keeps the text of the last three widths only: a fourth width renders again', async () => {
    const term = await resumed();
    const at100 = await term.nextClear(1);
    for (const columns of [90, 80, 70]) {
      term.columns = columns;
      await term.scrollback.redraw();
    }
    // 100 was dropped for 70: going back renders again — to the same text as the first time.
    term.columns = 100;
    const from = term.writes.length;
    await term.scrollback.redraw({ tailFirst: true });
    expect(term.writes.slice(from)).toHaveLength(2);
    expect(term.writes.at(-1)).toBe(CLEAR_SCREEN + at100);
    // 80 is still cached: one write.
    term.columns = 80;
    const again = term.writes.length;
    await term.scrollback.redraw({ tailFirst: true });
    expect(term.writes.slice(again)).toHaveLength(1);
  });

  it('items added while the background draws are written once, after the replay', async () => {
    const term = await resumed();
    term.store.dispatch({ type: 'append', items: [{ kind: 'notice', text: 'a notice after the replay', tone: 'info' }] });
    const whole = await term.nextClear(1);
    expectEveryTurnOnceInOrder(whole);
    expect(whole.split('a notice after the replay').length - 1).toBe(1);
    expect(whole.indexOf('a notice after the replay')).toBeGreaterThan(whole.indexOf(question(TURNS - 1)));
  });

  it('a newer redraw cancels an older one: one whole transcript, at the width of the newer', async () => {
    const term = await resumed();
    await term.nextClear(1);
    const from = term.writes.length;
    term.columns = 70;
    const first = term.scrollback.redraw();
    term.columns = 50;
    const second = term.scrollback.redraw();
    await Promise.all([first, second]);
    const writes = term.writes.slice(from);
    expect(writes).toHaveLength(1);
    expect(writes[0]).toBe(CLEAR_SCREEN + staticText(term.store.getState().items, 50));
  });

  it('a replay that fits the screens is left to <Static>', async () => {
    const sb = new Scrollback({ columns: () => 100, rows: () => 40, items: () => [] });
    const writes: string[] = [];
    sb.attach((data) => writes.push(data));
    expect(
      sb.take([
        { kind: 'user', text: 'one', attachments: [] },
        { kind: 'replayed', text: 'two' },
      ]),
    ).toBe(false);
    expect(writes).toEqual([]);
  });
});

/** A terminal in memory for the real Ink renderer (not ink-testing-library's debug mode). */
class MemoryTty extends EventEmitter {
  isTTY = true;
  writable = true;
  columns = 100;
  rows = 20;
  out = '';
  write(chunk: string | Uint8Array): boolean {
    this.out += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }
}

class MemoryKeys extends EventEmitter {
  isTTY = true;
  read = () => null;
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}

describe('the app with a plain-scrollback replay', () => {
  it('still prints items added after the replay through <Static>', async () => {
    ws = tempWorkspace();
    const id = await writeLongSession({ home: ws.home, cwd: ws.cwd, turns: 30 });
    const opened = await SessionStore.open(ws.home, ws.cwd, id);
    await opened.store.close();
    const tty = new MemoryTty();
    const store = createUiStore(initialUiState({ items: [{ kind: 'banner', id: 1, version: 'test', cwd: '/project' }] }));
    const scrollback = new Scrollback({ columns: () => tty.columns, rows: () => tty.rows, items: () => store.getState().items });
    const runtime = new ReplRuntime({ cwd: ws.cwd, env: {}, flags: {}, store, version: 'test', scrollback, onExit: () => undefined });
    const ink = render(<App runtime={runtime} scrollback={scrollback} />, {
      stdout: tty as unknown as NodeJS.WriteStream,
      stdin: new MemoryKeys() as unknown as NodeJS.ReadStream,
      stderr: tty as unknown as NodeJS.WriteStream,
      exitOnCtrlC: false,
      patchConsole: false,
      maxFps: RENDER_MAX_FPS,
    });
    try {
      const items = replayItems(opened.records);
      expect(scrollback.take(items)).toBe(true);
      store.dispatch({ type: 'append', items, scrollback: items.length });
      while (!tty.out.includes(CLEAR_SCREEN)) await new Promise((r) => setTimeout(r, 5));
      const before = tty.out.length;
      // Two commits in quick succession: the second lands inside Ink's frame throttle, so only
      // <Static>'s own immediate write can print it.
      for (const text of ['first after the replay', 'second after the replay']) {
        store.dispatch({ type: 'append', items: [{ kind: 'notice', text, tone: 'info' }] });
        await new Promise((r) => setImmediate(r));
      }
      // Printed, however long a loaded machine takes; never printed, the test times out.
      const printed = () => tty.out.slice(before);
      while (!printed().includes('• first after the replay') || !printed().includes('• second after the replay')) await new Promise((r) => setTimeout(r, 5));
      expectEveryTurnOnceInOrder(tty.out.slice(tty.out.lastIndexOf(CLEAR_SCREEN)), 30);
    } finally {
      ink.unmount();
    }
  });
});

describe('renderItems', () => {
  const kinds: NewItem[] = [
    { kind: 'user', text: 'look at @src/a.ts and tell me why it fails when the input is long enough to wrap', attachments: ['src/a.ts'] },
    { kind: 'replayed', text: '## Plan\n\n1. read it\n2. fix it\n   - carefully\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted\n\n```ts\nconst x = 1;\n```' },
    { kind: 'tool', card: { id: 'a', name: 'bash', args: 'npm test', status: 'done', output: 'one\ntwo\nthree\nfour\nfive' }, expanded: false },
    { kind: 'tool', card: { id: 'b', name: 'read_file', args: 'missing.ts', status: 'error', output: 'ENOENT: no such file' }, expanded: false },
    { kind: 'notice', text: 'Context compacted automatically', tone: 'success' },
    { kind: 'error', title: 'Error', message: 'Could not reach Anthropic' },
    { kind: 'block', title: 'Usage', lines: ['in 10', 'out 20'] },
  ];

  it('renders a batch as each item alone and as <Static> does, at any width', () => {
    for (const columns of [40, 100]) {
      const batch = renderItems(kinds, columns);
      expect(batch).toEqual(kinds.map((item) => renderItems([item], columns)[0]));
      const items = kinds.map((item, i) => ({ ...item, id: i + 1 }) as TranscriptItem);
      expect(batch.map((t) => `${t}\n`).join('')).toBe(staticText(items, columns));
    }
  });

  it('an item holding the separator characters is still rendered whole, in its place', () => {
    const odd: NewItem = { kind: 'user', text: 'a\n\u{F8FF}\u{F8FE}\u{F8FF}\nb', attachments: [] };
    const texts = renderItems([kinds[0], odd, kinds[4]], 80);
    expect(texts).toHaveLength(3);
    expect(texts[1]).toBe(renderItems([odd], 80)[0]);
    expect(texts[2]).toBe(renderItems([kinds[4]], 80)[0]);
  });
});
