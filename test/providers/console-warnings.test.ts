import { Console } from 'node:console';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { holdConsoleWarnings, type ConsoleWarningRoute } from '../../src/providers/kit/console-warnings.js';

const CODEC = '@aws-sdk/core/protocols - WARN - JsonCodec2: you have called a string method on a Uint8Array request body.';

/** A route taking the texts that start with `tag`, into `got`. */
function route(tag: string): ConsoleWarningRoute & { got: string[] } {
  const got: string[] = [];
  return { got, recognises: (t) => t.startsWith(tag), report: (t) => got.push(t) };
}

/** A real console writing its stderr to `text`. */
function capturingConsole(): { console: Console; text: () => string } {
  let text = '';
  const sink = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      done();
    },
  });
  return { console: new Console({ stdout: sink, stderr: sink }), text: () => text };
}

/** What Ink's `patchConsole` does to `console.warn`: its own console's, and back on `restore`. */
function patchLikeInk(): { warn: typeof console.warn; text: () => string; restore: () => void } {
  const before = console.warn;
  const ink = capturingConsole();
  console.warn = ink.console.warn;
  const restore = () => {
    console.warn = before;
  };
  return { warn: ink.console.warn, text: ink.text, restore };
}

let raw: unknown[][];
let consoleWarn: typeof console.warn;
let own: typeof console.warn;

beforeEach(() => {
  raw = [];
  consoleWarn = console.warn;
  own = (...args: unknown[]) => raw.push(args);
  console.warn = own;
});

afterEach(() => {
  console.warn = consoleWarn;
});

describe('holdConsoleWarnings', () => {
  it("takes only the library's texts; any other console.warn reaches the console untouched", () => {
    const aws = route('@aws-sdk/');
    const held = holdConsoleWarnings(aws);
    const error = new Error('not the SDK');
    console.warn(CODEC);
    console.warn('%s of mine', 'a warning', error);
    held.release();
    expect(aws.got).toEqual([CODEC]);
    expect(raw).toEqual([['%s of mine', 'a warning', error]]);
    expect(console.warn).toBe(own);
  });

  it('nested and overlapping holds: console is itself again only when the last one ends', () => {
    const main = route('@aws-sdk/');
    const sub = route('@aws-sdk/');
    const a = holdConsoleWarnings(main);
    const b = holdConsoleWarnings(sub);
    const c = holdConsoleWarnings(main);
    a.release();
    a.release();
    c.release();
    expect(console.warn).not.toBe(own);
    console.warn(CODEC);
    b.release();
    expect(console.warn).toBe(own);
    console.warn(CODEC);
    expect(sub.got).toEqual([CODEC]);
    expect(main.got).toEqual([]);
    expect(raw).toEqual([[CODEC]]);
  });

  it("a warning from a request's asynchronous work goes to that request's route", async () => {
    const main = route('@aws-sdk/');
    const sub = route('@aws-sdk/');
    const m = holdConsoleWarnings(main);
    const s = holdConsoleWarnings(sub);
    const later = (text: string) => new Promise<void>((done) => setTimeout(() => (console.warn(text), done()), 1));
    await Promise.all([m.run(() => later(`${CODEC} main`)), s.run(() => later(`${CODEC} sub`))]);
    m.release();
    s.release();
    expect(main.got).toEqual([`${CODEC} main`]);
    expect(sub.got).toEqual([`${CODEC} sub`]);
    expect(raw).toEqual([]);
  });

  it('something that replaces console.warn meanwhile is left in place', () => {
    const held = holdConsoleWarnings(route('@aws-sdk/'));
    const ink = (...args: unknown[]) => raw.push(['ink', ...args]);
    console.warn = ink;
    held.release();
    expect(console.warn).toBe(ink);
  });

  it("replaced during a request, then it ends: theirs stays, and the next request's warnings are still routed", () => {
    const terminal = capturingConsole();
    console.warn = terminal.console.warn;
    const aws = route('@aws-sdk/');
    const first = holdConsoleWarnings(aws);
    const ink = patchLikeInk();
    first.release();
    expect(console.warn).toBe(ink.warn);

    const second = holdConsoleWarnings(aws);
    second.run(() => console.warn(CODEC));
    console.warn('a warning of mine');
    second.release();
    expect(aws.got).toEqual([CODEC]);
    expect(ink.text()).toBe('a warning of mine\n');
    expect(console.warn).toBe(ink.warn);

    ink.restore();
    holdConsoleWarnings(aws).release();
    expect(console.warn).toBe(terminal.console.warn);
    expect(terminal.text()).toBe('');
  });

  it('a replacement removed during a later request: that request is routed, then console is its own', () => {
    const terminal = capturingConsole();
    console.warn = terminal.console.warn;
    const aws = route('@aws-sdk/');
    const first = holdConsoleWarnings(aws);
    const ink = patchLikeInk();
    first.release();
    const second = holdConsoleWarnings(aws);
    second.run(() => console.warn(`${CODEC} under Ink`));
    ink.restore();
    second.run(() => console.warn(CODEC));
    second.release();
    expect(console.warn).toBe(terminal.console.warn);
    console.warn('%s after', 'a warning', CODEC);
    console.warn(CODEC);
    expect(aws.got).toEqual([`${CODEC} under Ink`, CODEC]);
    expect(ink.text()).toBe('');
    expect(terminal.text()).toBe(`a warning after ${CODEC}\n${CODEC}\n`);
  });
});
