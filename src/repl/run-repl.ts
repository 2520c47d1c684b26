import { KeenError } from '../errors.js';
import type { ReplFlags } from '../cli/repl-entry.js';

/** Placeholder until the Ink REPL lands (issue 6): points the user at headless mode. */
export async function runRepl(_flags: ReplFlags): Promise<number> {
  throw new KeenError('the interactive REPL is not available yet; use `keen run "…"`');
}
