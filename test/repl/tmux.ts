/**
 * `bin/keen.js` in a real terminal: a tmux server of its own (`tmux -L <unique socket>`), keys
 * sent with send-keys, the screen read with capture-pane and polled against a deadline.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { cleanEnv, KEEN_BIN } from '../e2e/harness.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { PROMPT_GUARD_MS } from '../../src/repl/input/prompt-guard.js';

let counter = 0;

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Whether process `pid` has ended (gone, or a zombie nobody reaps yet). */
function ended(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/** Blocks until `pid` has ended, SIGKILLing it after `ms` (keen may still write its session as it takes the hangup). */
function awaitEnd(pid: number, ms: number): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + ms;
  while (!ended(pid)) {
    if (Date.now() > deadline) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // ended meanwhile
      }
      return;
    }
    Atomics.wait(pause, 0, 0, 20);
  }
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
  private constructor(
    readonly socket: string,
    /** Where the pane's shell writes keen's pid, so `kill` can wait for keen to end. */
    private readonly pidFile: string,
  ) {}

  /** Starts keen in a detached tmux session; the pane stays after keen exits and shows its exit code. */
  static start(opts: TmuxOptions): TmuxKeen {
    if (!existsSync(path.resolve(path.dirname(KEEN_BIN), '../dist/main.js'))) throw new Error('dist/ is missing: run `npm run build` first');
    const socket = `keen-test-${process.pid}-${Date.now()}-${counter++}`;
    const t = new TmuxKeen(socket, path.join(os.tmpdir(), `${socket}.pid`));
    const before = (opts.before ?? []).map((line) => `printf '%s\\n' ${quote(line)}; `).join('');
    const command = `${before}cd ${quote(opts.cwd)} && sh -c 'echo $$ > "$0"; exec "$@"' ${quote(t.pidFile)} ${quote(process.execPath)} ${quote(KEEN_BIN)} ${(opts.args ?? []).map(quote).join(' ')}${opts.stderrTo ? ` 2>${quote(opts.stderrTo)}` : ''}; echo "[keen exited $?]"; sleep 600`;
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

  /** Answer an open permission prompt with `key` once its typed-ahead guard has passed (input/prompt-guard.ts). */
  async answer(key: string): Promise<void> {
    await new Promise((r) => setTimeout(r, PROMPT_GUARD_MS + 150));
    this.keys(key);
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

  /** Polls the screen plus the last `lines` of scrollback until `test` holds; the error names `what`. */
  async waitForScrollback(
    test: (all: string) => boolean,
    { lines, what = 'the scrollback', timeoutMs = 20_000 }: { lines: number; what?: string; timeoutMs?: number },
  ): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const all = this.capture(false, lines);
      if (test(all)) return all;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; scrollback (${all.split('\n').length} lines) ends:\n${all.slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Ends the tmux server and waits for keen to end, so its workspace can go next. */
  kill(): void {
    let pid = 0;
    try {
      pid = Number(readFileSync(this.pidFile, 'utf8'));
    } catch {
      // keen never started
    }
    try {
      this.tmux('kill-server');
    } catch {
      // already gone
    }
    if (pid > 0) awaitEnd(pid, 5_000);
    rmSync(this.pidFile, { force: true });
  }
}

export interface TmuxRig {
  /** This test's loopback fake (Anthropic's unless `useTmuxRig` was given another). */
  readonly fake: ScriptedServer;
  /** This test's project folder and KEEN_HOME. */
  readonly ws: Workspace;
  /** The keen started by `start` in this test. */
  readonly t: TmuxKeen | undefined;
  /** keen in tmux in the workspace, against the fake (key, URL, KEEN_HOME, colours on); `env` adds to that. */
  start(opts?: Omit<TmuxOptions, 'cwd' | 'env'> & { env?: Record<string, string | undefined> }): TmuxKeen;
}

/**
 * A fresh fake and workspace for every test of the file, and its tmux keen; all gone after each
 * test. `startFake` starts another provider's fake (`start` sets the Anthropic key and URL all the same).
 */
export function useTmuxRig(startFake: () => Promise<ScriptedServer> = startAnthropicFake): TmuxRig {
  let fake: ScriptedServer | undefined;
  let ws: Workspace | undefined;
  let t: TmuxKeen | undefined;
  beforeEach(async () => {
    fake = await startFake();
    ws = tempWorkspace();
  });
  afterEach(async () => {
    t?.kill();
    t = undefined;
    await fake?.close();
    ws?.cleanup();
  });
  return {
    get fake() {
      return fake!;
    },
    get ws() {
      return ws!;
    },
    get t() {
      return t;
    },
    start(opts = {}) {
      t = TmuxKeen.start({
        ...opts,
        cwd: ws!.cwd,
        env: { KEEN_HOME: ws!.home, HOME: ws!.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake!.url, NO_COLOR: undefined, ...opts.env },
      });
      return t;
    },
  };
}
