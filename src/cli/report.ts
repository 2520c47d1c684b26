import { errorText, KeenError } from '../errors.js';
import { redactText, secretValues } from '../transcript/redact.js';
import { forStream } from '../security/terminal-text.js';

/** Prints one line for any error that reached the top and returns the exit code. Never a stack. */
export function reportFatal(err: unknown): number {
  // An SDK error may quote the key or a base URL with credentials in it: scrub before printing.
  const message = redactText(errorText(err), secretValues(process.env));
  process.stderr.write(forStream(process.stderr, `keen: ${message}\n`));
  if (process.env.KEEN_DEBUG && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  return err instanceof KeenError ? err.exitCode : 1;
}
