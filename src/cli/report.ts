import { errorText, KeenError } from '../errors.js';

/** Prints one line for any error that reached the top and returns the exit code. Never a stack. */
export function reportFatal(err: unknown): number {
  const message = errorText(err);
  process.stderr.write(`keen: ${message}\n`);
  if (process.env.KEEN_DEBUG && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  return err instanceof KeenError ? err.exitCode : 1;
}
