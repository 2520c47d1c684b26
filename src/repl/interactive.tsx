/**
 * Mounts the Ink app on the terminal, runs the REPL until it exits, and leaves the terminal as it
 * found it. Loaded lazily by run-repl.ts (Ink and React are the bulk of the REPL's startup).
 */
import { render } from 'ink';
import { sessionFlagsOf, type ReplFlags } from '../agent/flags.js';
import { keenHome } from '../config/paths.js';
import { errorText } from '../errors.js';
import { VERSION } from '../version.js';
import { App } from './app.js';
import { InputHistory, historyFile } from './input/history-store.js';
import { RENDER_MAX_FPS } from './render-options.js';
import { ReplRuntime } from './runtime.js';
import { Scrollback } from './scrollback.js';
import { initialUiState } from './state/ui-reducer.js';
import { createUiStore } from './state/ui-store.js';
import type { FirstFrame } from './first-frame.js';
import { CLEAR_SCREEN, guardTerminal } from './terminal.js';
import { refreshTheme } from './theme.js';
import { loadHighlighter } from './markdown/highlight.js';
import { yogaReady } from './yoga-ready.js';
import { terminalText } from '../security/terminal-text.js';

const RESIZE_DEBOUNCE_MS = 120;

export interface InteractiveIo {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

export async function startInteractive(flags: ReplFlags, io: InteractiveIo = process, firstFrame?: FirstFrame): Promise<number> {
  await yogaReady();
  refreshTheme(process.env);
  const cwd = process.cwd();
  const home = keenHome(process.env);
  const store = createUiStore(initialUiState({ items: [{ kind: 'banner', id: 1, version: VERSION, cwd }] }));
  const scrollback = new Scrollback({
    columns: () => io.stdout.columns || 80,
    rows: () => io.stdout.rows || 24,
    items: () => store.getState().items,
    onError: (err) => runtime.notice(`Could not write the transcript: ${errorText(err)}`, 'warning'),
  });

  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (finish = resolve));
  let instance: ReturnType<typeof render> | undefined;

  const runtime = new ReplRuntime({
    cwd,
    env: process.env,
    // Every session flag as given; `--resume <id>` is the session to reopen.
    flags: { ...sessionFlagsOf(flags), session: flags.resume },
    store,
    version: VERSION,
    history: new InputHistory(historyFile(home, cwd)),
    scrollback,
    clearScreen: () => {
      instance?.clear();
      io.stdout.write(CLEAR_SCREEN);
    },
    onExit: (code) => finish(code),
  });

  const guard = guardTerminal({
    stdout: io.stdout,
    stdin: io.stdin,
    onCrash: (err) => {
      teardown();
      io.stderr.write(terminalText(`keen: ${errorText(err)}\n`, { tabs: 'keep' }));
      if (runtime.session?.store.persisted) io.stderr.write(`Run \`keen --resume ${runtime.session.sessionId}\` to continue.\n`);
      process.exit(1);
    },
    onSignal: (code) => void runtime.exit(code),
  });

  let tornDown = false;
  function teardown(): void {
    if (tornDown) return;
    tornDown = true;
    store.dispatch({ type: 'close' });
    try {
      instance?.unmount();
    } catch {
      // already unmounted
    }
    guard.restore();
  }

  firstFrame?.handOver();
  instance = render(<App runtime={runtime} scrollback={scrollback} />, {
    stdin: io.stdin,
    stdout: io.stdout,
    stderr: io.stderr,
    exitOnCtrlC: false,
    patchConsole: true,
    maxFps: RENDER_MAX_FPS,
    kittyKeyboard: { mode: 'auto' },
  });
  const keysShown = firstFrame?.release() ?? Promise.resolve();
  // The highlighter (lowlight with all common grammars, slow to compile) loads off the startup
  // path: once the session is open and the prompt takes keys — or, when a resumed transcript is
  // about to be replayed with its code blocks, as soon as keys typed at the painted frame show.
  const highlight = () => void loadHighlighter().catch(() => undefined);
  if (flags.resume || flags.continue) void keysShown.then(highlight);
  // A render error ends Ink (its error boundary unmounts); end the REPL with it.
  let crash: unknown;
  instance.waitUntilExit().catch((err: unknown) => {
    crash = err;
    finish(1);
  });

  // Text already printed does not re-wrap by itself: when the width changes, clear the screen
  // and write the transcript again at the new width (debounced while the user drags): the last
  // screens at once, the rest as it renders, from a per-width cache when the width was seen.
  let width = io.stdout.columns;
  let resizeTimer: NodeJS.Timeout | undefined;
  const onResize = () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      if (io.stdout.columns === width || tornDown) return;
      width = io.stdout.columns;
      scrollback.redraw({ tailFirst: true }).catch((err: unknown) => runtime.notice(`Could not write the transcript: ${errorText(err)}`, 'warning'));
    }, RESIZE_DEBOUNCE_MS);
  };
  io.stdout.on('resize', onResize);

  let startupError: unknown;
  runtime.start(flags.initialPrompt).then(highlight, (err: unknown) => {
    startupError = err;
    finish(1);
  });

  const code = await finished;
  io.stdout.off('resize', onResize);
  clearTimeout(resizeTimer);
  // Let React commit the closed screen (transcript only) before Ink writes its last frame.
  store.dispatch({ type: 'close' });
  await new Promise((resolve) => setTimeout(resolve, 30));
  teardown();
  await instance.waitUntilExit().catch(() => undefined);
  if (startupError) throw startupError;
  if (crash) {
    await runtime.exit(1);
    if (runtime.session?.store.persisted) io.stderr.write(`Run \`keen --resume ${runtime.session.sessionId}\` to continue.\n`);
    throw crash;
  }
  if (runtime.session?.store.persisted) io.stdout.write(`Run \`keen --resume ${runtime.session.sessionId}\` to continue.\n`);
  return code;
}
