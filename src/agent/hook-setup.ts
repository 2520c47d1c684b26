/**
 * The session-open step that reads the hooks (src/hooks/): the user's config and
 * `~/.claude/settings.json` always, a trusted
 * project's `.keen/config.json` and `.claude/settings.json`; the reasons others were skipped
 * join the open's warnings, and a hook that fails later is reported like a late MCP warning.
 */
import { homedir } from 'node:os';
import { loadHooks } from '../hooks/load-hooks.js';
import { createSessionHooks, type SessionHooks } from '../hooks/session-hooks.js';
import { forStream } from '../security/terminal-text.js';
import type { SessionSettings } from './session-settings.js';
import type { OpenSessionOptions } from './session-types.js';

export function sessionHooks(opts: OpenSessionOptions, settings: SessionSettings): SessionHooks | undefined {
  const userHome = opts.env.HOME?.trim() || homedir();
  const loaded = loadHooks({ home: settings.home, cwd: opts.cwd, userHome }, settings.files, settings.projectTrusted);
  settings.warnings.push(...loaded.warnings);
  if (loaded.entries.length === 0) return undefined;
  const warn =
    opts.onWarning ??
    ((line: string) => {
      if (!opts.interactive) process.stderr.write(forStream(process.stderr, `keen: warning: ${line}\n`));
    });
  return createSessionHooks({ cwd: opts.cwd, env: opts.env, entries: loaded.entries, warn });
}
