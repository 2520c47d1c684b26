/**
 * Mounts the Ink app on the terminal, runs the REPL until it exits, and leaves the terminal as it
 * found it. Loaded lazily by run-repl.ts (Ink and React are the bulk of the REPL's startup).
 */
import { render } from 'ink';
import type { ReplFlags } from '../cli/repl-entry.js';
import { keenHome } from '../config/paths.js';
import { errorText } from '../errors.js';
import { VERSION } from '../version.js';
import { App } from './app.js';
import { InputHistory, historyFile } from './input/history-store.js';
import { ReplRuntime } from './runtime.js';
import { initialUiState } from './state/ui-reducer.js';
import { createUiStore } from './state/ui-store.js';
import { CLEAR_SCREEN, guardTerminal } from './terminal.js';
import { refreshTheme } from './theme.js';

export interface InteractiveIo {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

export async function startInteractive(flags: ReplFlags, io: InteractiveIo = process): Promise<number> {
  refreshTheme(process.env);
  const cwd = process.cwd();
  const home = keenHome(process.env);
  const store = createUiStore(initialUiState({ items: [{ kind: 'banner', id: 1, version: VERSION, cwd }] }));

  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (finish = resolve));
  let instance: ReturnType<typeof render> | undefined;

  const runtime = new ReplRuntime({
    cwd,
    env: process.env,
    flags: { session: flags.resume, continue: flags.continue, provider: flags.provider, model: flags.model, profile: flags.profile, yolo: flags.yolo },
    store,
    version: VERSION,
    history: new InputHistory(historyFile(home, cwd)),
    clearScreen: () => {
      instance?.clear();
      io.stdout.write(CLEAR_SCREEN);
    },
    onExit: (code) => finish(code),
  });

  const guard = guardTerminal({
    stdout: io.stdout,
    onCrash: (err) => {
      teardown();
      io.stderr.write(`keen: ${errorText(err)}\n`);
      if (runtime.session) io.stderr.write(`Run \`keen --resume ${runtime.session.sessionId}\` to continue.\n`);
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

  instance = render(<App runtime={runtime} />, {
    stdin: io.stdin,
    stdout: io.stdout,
    stderr: io.stderr,
    exitOnCtrlC: false,
    patchConsole: true,
    kittyKeyboard: { mode: 'auto' },
  });

  let startupError: unknown;
  runtime.start(flags.initialPrompt).catch((err: unknown) => {
    startupError = err;
    finish(1);
  });

  const code = await finished;
  teardown();
  await instance.waitUntilExit().catch(() => undefined);
  if (startupError) throw startupError;
  if (runtime.session) io.stdout.write(`Run \`keen --resume ${runtime.session.sessionId}\` to continue.\n`);
  return code;
}
