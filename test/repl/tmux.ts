/**
 * `bin/keen.js` in a real terminal: a tmux server of its own (`tmux -L <unique socket>`), keys
 * sent with send-keys, the screen read with capture-pane and polled against a deadline.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { cleanEnv, KEEN_BIN } from '../e2e/harness.js';

let counter = 0;

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export interface TmuxOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  args?: string[];
  width?: number;
  height?: number;
  /** Lines printed in the pane before keen starts (earlier scrollback keen must not wipe). */
  before?: string[];
  /** A file for keen's stderr instead of the pane. */
  stderrTo?: string;
}

export class TmuxKeen {
  private constructor(readonly socket: string) {}

  /** Starts keen in a detached tmux session; the pane stays after keen exits and shows its exit code. */
  static start(opts: TmuxOptions): TmuxKeen {
    if (!existsSync(path.resolve(path.dirname(KEEN_BIN), '../dist/main.js'))) throw new Error('dist/ is missing: run `npm run build` first');
    const socket = `keen-test-${process.pid}-${Date.now()}-${counter++}`;
    const t = new TmuxKeen(socket);
    const before = (opts.before ?? []).map((line) => `printf '%s\\n' ${quote(line)}; `).join('');
    const command = `${before}cd ${quote(opts.cwd)} && ${quote(process.execPath)} ${quote(KEEN_BIN)} ${(opts.args ?? []).map(quote).join(' ')}${opts.stderrTo ? ` 2>${quote(opts.stderrTo)}` : ''}; echo "[keen exited $?]"; sleep 600`;
    execFileSync('tmux', ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'main', '-x', String(opts.width ?? 100), '-y', String(opts.height ?? 40), command], {
      env: cleanEnv({ TERM: 'xterm-256color', ...opts.env }),
      stdio: 'ignore',
    });
    return t;
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  }

  /** The screen plus scrollback (the last `history` lines of it), wrapped lines joined. `escapes` keeps colour sequences. */
  capture(escapes = false, history = 500): string {
    return this.tmux('capture-pane', '-p', '-J', ...(escapes ? ['-e'] : []), '-t', 'main', '-S', String(-history)).replace(/\s+$/, '');
  }

  /** Only what is on screen now (no scrollback), lines not joined. */
  screen(): string {
    return this.tmux('capture-pane', '-p', '-t', 'main');
  }

  /** Literal text, then optionally Enter as a separate key press. */
  type(text: string, enter = true): void {
    this.tmux('send-keys', '-t', 'main', '-l', text);
    if (enter) this.tmux('send-keys', '-t', 'main', 'Enter');
  }

  keys(...names: string[]): void {
    this.tmux('send-keys', '-t', 'main', ...names);
  }

  resize(width: number, height: number): void {
    this.tmux('resize-window', '-t', 'main', '-x', String(width), '-y', String(height));
  }

  async waitFor(match: string | RegExp | ((screen: string) => boolean), timeoutMs = 15_000): Promise<string> {
    const test = typeof match === 'string' ? (s: string) => s.includes(match) : match instanceof RegExp ? (s: string) => match.test(s) : match;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      let screen = '';
      try {
        screen = this.capture();
      } catch {
        // the server may still be starting
      }
      if (test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(match)}; screen:\n${screen}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  kill(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // already gone
    }
  }
}
