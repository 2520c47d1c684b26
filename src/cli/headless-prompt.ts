import type { LiveSession } from '../agent/open-session.js';
import { KeenError } from '../errors.js';

/**
 * The text `keen run` sends: `/<command> args` and `/<skill> args` expand to the command's body
 * or the skill's instructions; anything else (including `/usr/bin/env …`) is sent as typed. On a
 * failure (a skill that can no longer be read) the session is closed and a one-line KeenError
 * names the file.
 */
export async function headlessPrompt(session: Pick<LiveSession, 'expandSlash' | 'close'>, input: string): Promise<string> {
  try {
    const expansion = session.expandSlash(input);
    return expansion.kind === 'none' ? input : expansion.text;
  } catch (err) {
    await session.close();
    throw new KeenError((err as Error).message);
  }
}
