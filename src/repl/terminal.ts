/**
 * Terminal hygiene while the REPL owns the screen: bracketed paste on, library warnings kept off
 * the screen, and the terminal restored on every way out (normal exit, a signal, a crash).
 */

const BRACKETED_PASTE_ON = '\x1b[?2004h';
const BRACKETED_PASTE_OFF = '\x1b[?2004l';
const SHOW_CURSOR = '\x1b[?25h';

export interface TerminalGuard {
  /** Undo everything `guardTerminal` changed. Idempotent. */
  restore(): void;
  /** Warnings emitted by libraries while the REPL ran (not shown on screen). */
  warnings: string[];
}

export interface GuardOptions {
  stdout: NodeJS.WriteStream;
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
  const hup = () => opts.onSignal(129);
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
      write(BRACKETED_PASTE_OFF + SHOW_CURSOR);
    },
  };
}

/** Erase the screen and the scrollback, cursor home (before a replaced transcript is drawn). */
export const CLEAR_SCREEN = '\x1b[2J\x1b[3J\x1b[H';
