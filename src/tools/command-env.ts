import { delimiter, isAbsolute } from 'node:path';
import { isCredentialName, KEEN_CREDENTIAL_VARS } from '../security/credential-names.js';

/**
 * The environment of commands the model runs. Keen's credentials never reach them: a model that
 * runs `env` would otherwise send a key back to the provider. Removed, unless `bash.envPassthrough`
 * names them: every provider key Keen knows, the variables config names as `apiKeyEnv`, AWS secret
 * keys and session tokens, and every variable whose name looks secret (`*_KEY`, `*_TOKEN`,
 * `*_SECRET`, `*PASSWORD*`, `*CREDENTIAL*`, case-insensitive).
 */
export const WITHHELD_FROM_COMMANDS = KEEN_CREDENTIAL_VARS;

export interface CommandEnvOptions {
  /** Names kept even though they look secret (`bash.envPassthrough`). */
  passthrough?: readonly string[];
  /** More names to remove (the `apiKeyEnv` of config). */
  withhold?: readonly string[];
}

/** True when `name` is withheld from commands under `options`. */
export function isWithheld(name: string, options: CommandEnvOptions = {}): boolean {
  if (options.passthrough?.includes(name)) return false;
  return isCredentialName(name, options.withhold);
}

/**
 * Also: `PATH` keeps only its absolute entries. A relative one (`node_modules/.bin`, `.`) names a
 * folder of whatever repository the command runs in, so `git` in an allow-listed `git status`
 * could be a program the repository ships.
 */
export function commandEnv(env: NodeJS.ProcessEnv, options: CommandEnvOptions = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) if (!isWithheld(name, options)) out[name] = value;
  if (out.PATH !== undefined) out.PATH = absolutePath(out.PATH);
  return { ...out, PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' };
}

/** `PATH` without its empty and relative entries (an empty entry means the current folder). */
function absolutePath(value: string): string {
  return value
    .split(delimiter)
    .filter((entry) => entry !== '' && isAbsolute(entry))
    .join(delimiter);
}
