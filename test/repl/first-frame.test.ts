/**
 * The painted first frame's hand-over to Ink (src/repl/first-frame.ts): keys typed at the painted
 * frame wait in stdin and reach Ink's listener; `release()` says when they are on screen — at once
 * when nothing was typed, one Ink frame interval after Ink read them otherwise (what waits for it,
 * the highlighter a resumed session loads, must not hold back the frame with the user's keys).
 * stdin and stdout are Node streams; stdin gets the TTY's setRawMode as a no-op.
 */
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KEYS_SHOWN_MS, paintFirstFrame } from '../../src/repl/first-frame.js';

function terminal() {
  const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin }) as unknown as NodeJS.ReadStream & PassThrough;
  const stdout = new PassThrough() as unknown as NodeJS.WriteStream & PassThrough;
  let screen = '';
  stdout.on('data', (d: Buffer) => (screen += d.toString()));
  const frame = paintFirstFrame({ stdin, stdout, version: '9.9.9', cwd: '/work/app', noColor: true });
  /** What Ink does once mounted: listen for 'readable' and read everything. */
  const inkReads: string[] = [];
  const mountInk = () =>
    stdin.on('readable', () => {
      for (let chunk = stdin.read(); chunk !== null; chunk = stdin.read()) inkReads.push(chunk.toString());
    });
  return { stdin, frame, inkReads, mountInk, screen: () => screen.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '') };
}

const settled = async (p: Promise<void>) => {
  let done = false;
  void p.then(() => (done = true));
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
};

describe('first frame', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }));
  afterEach(() => vi.useRealTimers());

  it('paints the prompt at once; with nothing typed, release resolves without waiting for a frame', async () => {
    const t = terminal();
    await new Promise((r) => setImmediate(r));
    expect(t.screen()).toContain('› Type a message · /help for commands');
    expect(t.screen()).toContain('keen 9.9.9 · /work/app');
    t.mountInk();
    expect(await settled(t.frame.release())).toBe(true);
    expect(t.inkReads).toEqual([]);
  });

  it('keys typed at the painted frame reach Ink when it listens; release resolves one frame interval later', async () => {
    const t = terminal();
    t.stdin.write('hi');
    await new Promise((r) => setImmediate(r));
    expect(t.inkReads).toEqual([]);
    t.mountInk();
    const shown = t.frame.release();
    expect(t.inkReads.join('')).toBe('hi');
    expect(await settled(shown)).toBe(false);
    vi.advanceTimersByTime(KEYS_SHOWN_MS - 1);
    expect(await settled(shown)).toBe(false);
    vi.advanceTimersByTime(1);
    expect(await settled(shown)).toBe(true);
    expect(t.frame.release()).toBe(shown);
  });

  it('when Ink listens late, the keys wait for it and release waits with them', async () => {
    const t = terminal();
    t.stdin.write('x');
    const shown = t.frame.release();
    vi.advanceTimersByTime(30);
    expect(t.inkReads).toEqual([]);
    expect(await settled(shown)).toBe(false);
    t.mountInk();
    vi.advanceTimersByTime(10);
    expect(t.inkReads.join('')).toBe('x');
    vi.advanceTimersByTime(KEYS_SHOWN_MS);
    expect(await settled(shown)).toBe(true);
  });
});
