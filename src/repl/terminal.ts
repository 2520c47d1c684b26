/**
 * Terminal hygiene while the REPL owns the screen: bracketed paste on, library warnings kept off
 * the screen, and the terminal restored on every way out (normal exit, a signal, a crash).
 */

import { fstatSync, closeSync, openSync } from 'node:fs';

const BRACKETED_PASTE_ON = '\x1b[?2004h';
const BRACKETED_PASTE_OFF = '\x1b[?2004l';
const SHOW_CURSOR = '\x1b[?25h';

export interface TerminalGuard {
  /** Undo everything `guardTerminal` changed. Idempotent. */
  restore(): void;
  /** Warnings emitted by libraries while the REPL ran (not shown on screen). */
  warnings: string[];
}

/** What a read or write on a terminal that has gone away fails with. */
const TERMINAL_GONE = new Set(['EIO', 'EPIPE', 'ENOTCONN', 'ENXIO']);

export interface GuardOptions {
  stdout: NodeJS.WriteStream;
  /** The terminal's input: a read that fails because the terminal is gone is a hang-up too. */
  stdin?: NodeJS.ReadStream;
  /** A crash: restore the screen first, then report it. Must end the process. */
  onCrash(err: unknown): void;
  /** SIGTERM / SIGHUP / SIGINT from outside (Ctrl+C itself is a key in raw mode): end gracefully. */
  onSignal(code: number): void;
}

export function guardTerminal(opts: GuardOptions): TerminalGuard {
  const { stdout } = opts;
  const warnings: string[] = [];
  const write = (s: string) => {
    try {
      if (stdout.writable) stdout.write(s);
    } catch {
      // the terminal may be gone (SIGHUP)
    }
  };
  write(BRACKETED_PASTE_ON);

  // Node prints process warnings (deprecations, experimental features) straight to stderr,
  // which would tear through the frame; keep them for later instead.
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error) => {
    warnings.push(typeof warning === 'string' ? warning : warning.message);
  }) as typeof process.emitWarning;

  const crash = (err: unknown) => opts.onCrash(err);
  const term = () => opts.onSignal(143);
  // A closed terminal (the window closed, ssh dropped): SIGHUP, and often first an EIO on the
  // terminal's own streams. Either is the hang-up, not a crash: the REPL ends the graceful way,
  // exit 129, once; later write failures to the gone terminal are expected.
  let hungUp = false;
  const ignore = () => undefined;
  const hup = () => {
    if (hungUp) return;
    hungUp = true;
    // Kept after restore(): the last writes of the way out fail too, after this guard is gone.
    stdout.on('error', ignore);
    opts.stdin?.on('error', ignore);
    process.once('exit', detachGoneTerminal);
    opts.onSignal(129);
  };
  const streamError = (err: NodeJS.ErrnoException) => {
    if (hungUp || TERMINAL_GONE.has(err.code ?? '')) hup();
    else crash(err);
  };
  stdout.on('error', streamError);
  opts.stdin?.on('error', streamError);
  const int = () => opts.onSignal(130);
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
  process.on('SIGTERM', term);
  process.on('SIGHUP', hup);
  process.on('SIGINT', int);

  let restored = false;
  return {
    warnings,
    restore() {
      if (restored) return;
      restored = true;
      process.emitWarning = emitWarning;
      process.off('uncaughtException', crash);
      process.off('unhandledRejection', crash);
      process.off('SIGTERM', term);
      process.off('SIGHUP', hup);
      process.off('SIGINT', int);
      stdout.off('error', streamError);
      opts.stdin?.off('error', streamError);
      write(BRACKETED_PASTE_OFF + SHOW_CURSOR);
    },
  };
}

/**
 * At exit Node 20 puts the terminal back in the mode it found it in, and aborts (SIGABRT, a core
 * dump where cores are kept) when that fails — as it does on a terminal that hung up
 * (nodejs/node#51519). It skips a descriptor that no longer refers to the file it started with,
 * so after a hang-up the terminal's descriptors are pointed at /dev/null on the way out.
 */
function detachGoneTerminal(): void {
  for (const fd of [0, 1, 2]) {
    try {
      // isatty() is false on a terminal that hung up; it is still a character device. (BigInt
      // stats: a plain fstat of a special file misleads Node's realpath, nodejs/node#51142.)
      if (!fstatSync(fd, { bigint: true }).isCharacterDevice()) continue;
      closeSync(fd);
      // The lowest free descriptor: `fd` again, since the ones below it are open.
      openSync('/dev/null', fd === 0 ? 'r' : 'w');
    } catch {
      // not a terminal any more, or already closed
    }
  }
}

/** Erase the screen and the scrollback, cursor home (before a replaced transcript is drawn). */
export const CLEAR_SCREEN = '\x1b[2J\x1b[3J\x1b[H';
