/**
 * The REPL in-process: the real runtime, real sessions and the real Anthropic SDK against the
 * loopback fake, rendered with ink-testing-library. Keys are written to stdin.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cleanup as inkCleanup, render } from 'ink-testing-library';
import { openSession } from '../../src/agent/open-session.js';
import type { SessionFlags } from '../../src/agent/open-session.js';
import { App } from '../../src/repl/app.js';
import { InputHistory, historyFile } from '../../src/repl/input/history-store.js';
import { ReplRuntime } from '../../src/repl/runtime.js';
import { initialUiState } from '../../src/repl/state/ui-reducer.js';
import { createUiStore } from '../../src/repl/state/ui-store.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { Responder } from '../fakes/script.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { userConfigPath } from '../../src/config/paths.js';
import { NO_SANDBOX } from '../kit/sandbox.js';

export const KEYS = {
  enter: '\r',
  esc: '\x1b',
  ctrlC: '\x03',
  ctrlO: '\x0f',
  up: '\x1b[A',
  down: '\x1b[B',
  tab: '\t',
  backspace: '\x7f',
};

export interface HarnessOptions {
  files?: Record<string, string>;
  /** `.keen/config.json` of the project. */
  config?: unknown;
  flags?: SessionFlags;
  responder?: Responder;
  /** Reuse a workspace (and its KEEN_HOME) from an earlier harness. */
  workspace?: Workspace;
  fake?: ScriptedServer;
  /** The permission prompt's typed-ahead guard (default 0: answers are taken at once). */
  promptGuardMs?: number;
}

export interface ReplHarness {
  fake: ScriptedServer;
  ws: Workspace;
  runtime: ReplRuntime;
  /** The whole screen (Static included), with the temp cwd and the session id replaced. */
  frame(): string;
  write(data: string): void;
  /** Type `text` and press Enter. */
  send(text: string): void;
  waitFor(match: string | RegExp | ((frame: string) => boolean), timeoutMs?: number): Promise<string>;
  exited: Promise<number>;
  /** Exit the REPL and stop the fake (keeps the workspace unless `dispose`). */
  close(opts?: { dispose?: boolean }): Promise<void>;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<ReplHarness> {
  const ws = opts.workspace ?? tempWorkspace(opts.files);
  if (opts.workspace && opts.files) {
    for (const [rel, content] of Object.entries(opts.files)) writeFileSync(path.join(ws.cwd, rel), content);
  }
  if (opts.config) {
    mkdirSync(path.join(ws.cwd, '.keen'), { recursive: true });
    writeFileSync(path.join(ws.cwd, '.keen', 'config.json'), JSON.stringify(opts.config));
  }
  // These tests are about the screen, not the sandbox: on a machine without one, bash runs
  // unsandboxed on purpose rather than with a warning and a note in every frame.
  if (NO_SANDBOX && !existsSync(userConfigPath(ws.home))) writeFileSync(userConfigPath(ws.home), JSON.stringify({ sandbox: { mode: 'off' } }));
  const fake = opts.fake ?? (await startAnthropicFake());
  if (opts.responder) fake.setResponder(opts.responder);
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: ws.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url, KEEN_HOME: ws.home };
  const store = createUiStore(initialUiState({ items: [{ kind: 'banner', id: 1, version: '0.0.0-test', cwd: ws.cwd }] }));
  let resolveExit!: (code: number) => void;
  const exited = new Promise<number>((r) => (resolveExit = r));
  const runtime = new ReplRuntime({
    cwd: ws.cwd,
    env,
    flags: opts.flags ?? {},
    store,
    version: '0.0.0-test',
    open: openSession,
    history: new InputHistory(historyFile(ws.home, ws.cwd)),
    onExit: (code) => resolveExit(code),
    batchMs: 0,
    promptGuardMs: opts.promptGuardMs ?? 0,
  });
  const ink = render(<App runtime={runtime} />);
  await runtime.start();

  const frame = () => {
    let f = ink.lastFrame() ?? '';
    f = f.split(ws.cwd).join('<cwd>');
    const id = runtime.session?.sessionId;
    if (id) f = f.split(id).join('<id>');
    return f;
  };
  const waitFor: ReplHarness['waitFor'] = async (match, timeoutMs = 10_000) => {
    const test = typeof match === 'string' ? (f: string) => f.includes(match) : match instanceof RegExp ? (f: string) => match.test(f) : match;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const f = frame();
      if (test(f)) return f;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(match)}; screen:\n${f}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  return {
    fake,
    ws,
    runtime,
    frame,
    write: (data) => ink.stdin.write(data),
    send(text) {
      ink.stdin.write(text);
      ink.stdin.write(KEYS.enter);
    },
    waitFor,
    exited,
    async close(closeOpts = {}) {
      await runtime.exit(0);
      ink.unmount();
      inkCleanup();
      if (!opts.fake) await fake.close();
      if (closeOpts.dispose !== false) ws.cleanup();
    },
  };
}

/** The footer and prompt box every idle frame ends with. */
export function idleTail(footer: string): string {
  const bar = '─'.repeat(98);
  return ['', `╭${bar}╮`, `│ ${'› Type a message · /help for commands'.padEnd(96)} │`, `╰${bar}╯`, ` ${footer}`].join('\n');
}
