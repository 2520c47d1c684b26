import { Writable } from 'node:stream';
import type { ReplFlags } from '../agent/flags.js';
import { keenHome } from '../config/paths.js';
import { askTrustIfNeeded } from '../config/trust-prompt.js';
import { KeenError } from '../errors.js';
import { terminalText } from '../security/terminal-text.js';
import { VERSION } from '../version.js';
import { paintFirstFrame } from './first-frame.js';

/**
 * `keen` in a terminal: the interactive REPL. This module stays tiny; Ink, React and the app load
 * through one dynamic import after the environment is set up, so nothing (the AWS SDK's Node
 * version warning included) can print before the screen is ours. The prompt is painted before
 * that import (see first-frame.ts), so the user sees it as soon as Node has started. The trust
 * question (two stats in the common case) loads with this module, not as imports of its own: each
 * dynamic import costs a round of module loading before the frame.
 */
export async function runRepl(flags: ReplFlags): Promise<number> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new KeenError('the interactive REPL needs a terminal; for pipes and scripts use `keen run "…"` (or `echo "…" | keen run`)');
  }
  // The question quotes the project's own rules and server names: it reaches the terminal
  // through the sanitiser like everything else Keen draws (a rule carrying ESC [8m hid `bash`).
  const output = new Writable({
    decodeStrings: false,
    write: (chunk: string | Buffer, _encoding, done) => void process.stdout.write(terminalText(String(chunk), { tabs: 'keep' }), () => done()),
  });
  await askTrustIfNeeded({ home: keenHome(process.env), cwd: process.cwd(), input: process.stdin, output, decided: !!(flags.trust || flags.yolo) });
  const firstFrame = paintFirstFrame({ stdin: process.stdin, stdout: process.stdout, version: VERSION, cwd: process.cwd(), noColor: !!process.env.NO_COLOR });
  let startInteractive: typeof import('./interactive.js').startInteractive;
  try {
    ({ startInteractive } = await importWithoutCiFlag(() => import('./interactive.js')));
  } catch (err) {
    firstFrame.abort();
    throw err;
  }
  return startInteractive(flags, process, firstFrame);
}

/**
 * Ink reads `CI` / `CONTINUOUS_INTEGRATION` once, when it loads, and then renders only the final
 * frame. In a real terminal that would freeze the screen, so hide them while Ink loads and put
 * them back for everything else (commands the model runs still see them).
 */
async function importWithoutCiFlag<T>(load: () => Promise<T>): Promise<T> {
  const saved = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION };
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
  try {
    return await load();
  } finally {
    for (const [key, value] of Object.entries(saved)) if (value !== undefined) process.env[key] = value;
  }
}
