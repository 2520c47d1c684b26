import { delimiter, isAbsolute } from 'node:path';

/**
 * The environment of a child process Keen starts on its own (git for the prompt's status,
 * ripgrep, the browser opener): an allow-list of harmless variables, so no credential of Keen's
 * (provider keys, cloud secrets, tokens) reaches a program that may run repository code. A
 * deny-list would miss the next secret's name; an allow-list only ever misses a harmless one.
 */

/** Variables a child gets, by exact name: where things are, who the user is, how text looks. */
const KEPT = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TERM',
  'TZ',
  'TMPDIR',
  'TMP',
  'TEMP',
  'NO_COLOR',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  // Windows: programs do not start without some of these.
  'SYSTEMROOT',
  'SystemRoot',
  'COMSPEC',
  'ComSpec',
  'PATHEXT',
  'WINDIR',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
  // git: the variables that say which repository and which config files, none that name a program.
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_COMMON_DIR',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_CEILING_DIRECTORIES',
  'GIT_DISCOVERY_ACROSS_FILESYSTEM',
  'GIT_NAMESPACE',
  'GIT_CONFIG_NOSYSTEM',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
]);

/** Locale variables (`LC_ALL`, `LC_CTYPE`, …). */
const LOCALE = /^LC_[A-Z_]+$/;

/** What a desktop program (the browser opener) needs besides: the display and the session bus. */
export const DESKTOP_VARIABLES = ['DISPLAY', 'WAYLAND_DISPLAY', 'XDG_RUNTIME_DIR', 'DBUS_SESSION_BUS_ADDRESS', 'BROWSER', 'XDG_CURRENT_DESKTOP', 'XDG_SESSION_TYPE'];

/**
 * The allow-listed part of `env`, plus the variables `extra` names. `PATH` loses its relative
 * entries: a child resolves them against its own folder, where a repository could put a program
 * of the same name. Pure.
 */
export function childEnv(env: NodeJS.ProcessEnv, extra: readonly string[] = []): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  // Names first, values only of the kept ones: reading `process.env` goes through the C++ side.
  for (const name of Object.keys(env)) {
    if (!KEPT.has(name) && !LOCALE.test(name) && !extra.includes(name)) continue;
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  if (out.PATH !== undefined) out.PATH = absoluteEntries(out.PATH);
  return out;
}

function absoluteEntries(value: string): string {
  return value
    .split(delimiter)
    .filter((entry) => entry !== '' && isAbsolute(entry))
    .join(delimiter);
}
