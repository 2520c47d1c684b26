import { openSession, type LiveSession, type SessionFlags } from '../agent/open-session.js';
import { keenHome } from '../config/paths.js';
import type { GitStatusCache } from '../project/git-status.js';
import { findSession } from '../transcript/list.js';
import { forStream } from '../security/terminal-text.js';

/**
 * Opens the session of a headless command (`keen run`, `keen compact`). A `--session` id is looked
 * up first so an id from another directory is named as such (with `keen sessions --all`) instead
 * of "no session"; the session's notices (a damaged transcript repaired, a policy turned off)
 * go to stderr, one line each, because nobody else shows them in headless mode.
 */
export async function openCliSession(flags: SessionFlags, opts: { inspect?: boolean; firstInputKnown?: boolean; git?: GitStatusCache } = {}): Promise<LiveSession> {
  if (flags.session) await findSession(keenHome(process.env), process.cwd(), flags.session);
  const session = await openSession({ cwd: process.cwd(), env: process.env, flags, interactive: false, ...opts });
  for (const warning of session.warnings) process.stderr.write(forStream(process.stderr, `keen: warning: ${warning.replace(/\s+/g, ' ').trim()}\n`));
  return session;
}
