import type { ReplFlags } from '../agent/flags.js';
import { runRepl } from '../repl/run-repl.js';

/**
 * `keen`: the interactive REPL (Ink). Loaded only when no headless command was given. run-repl.ts
 * is small (Ink and the app load behind its own dynamic import), so it loads with this module
 * rather than as one more round of module loading before the first frame.
 */
export async function startRepl(flags: ReplFlags): Promise<number> {
  return runRepl(flags);
}
