import { KeenError } from '../errors.js';

/** Placeholder until Codex sign-in lands (issue 7). */
export async function runCodexLogin(): Promise<number> {
  throw new KeenError('keen login codex is not available yet');
}
