import type { ReplFlags } from '../app-state/flags.js';

/** `keen`: the interactive REPL (Ink). Loaded only when no headless command was given. */
export async function startRepl(flags: ReplFlags): Promise<number> {
  const { runRepl } = await import('../repl/run-repl.js');
  return runRepl(flags);
}
