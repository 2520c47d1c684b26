import { KeenError } from '../errors.js';

/** `keen login <provider>`: only Codex signs in with an account. */
export async function runLoginCommand(provider: string): Promise<number> {
  if (provider !== 'codex') throw new KeenError(`keen login supports only "codex" (got "${provider}"); other providers use API keys`, 2);
  const { runCodexLogin } = await import('../auth/codex-login-cli.js');
  return runCodexLogin();
}
