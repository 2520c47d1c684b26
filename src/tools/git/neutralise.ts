/**
 * The git settings that turn off every repository setting that runs a program: given the config
 * git reads (`git config --list --includes --show-scope`, which runs nothing), one override per
 * code-running key, passed as command-scope config (it beats every config file). Pure.
 *
 * Checked against git itself (test/tools/git-neutralise.test.ts): an empty filter command is a
 * pass-through (`required=false` keeps a missing one from failing); an empty pager is none; an
 * empty `diff.external` / `diff.<driver>.command` is not "unset" but a program that cannot start,
 * so such a diff fails instead of running anything; `textconv=cat` shows the file as it is.
 */

/** One line of `git config --list --show-scope`. */
export interface ConfigEntry {
  /** `system`, `global`, `local`, `worktree`, `command`. */
  scope: string;
  /** As git prints it: section and name lowercased, a subsection as written. */
  key: string;
  value?: string;
}

export type GitSetting = readonly [key: string, value: string];

/**
 * Which config files' programs are turned off: `all` for git that Keen runs on its own (no
 * program runs at all); `repository` for a command the user allowed by rule, where the user's own
 * system and global config (git-lfs, their pager) stay as they set them and only the
 * repository's (`local`, `worktree`, and what they include) is neutralised.
 */
export type NeutraliseScope = 'all' | 'repository';

/** Set whatever config says: no fsmonitor, no hooks, no pager, no ext:: transport, no recursion into submodules (whose config is not read here). */
export const ALWAYS: readonly GitSetting[] = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', ''],
  ['protocol.ext.allow', 'never'],
  ['diff.ignoreSubmodules', 'dirty'],
  ['submodule.recurse', 'false'],
];

/** Parse `git config --null --list --show-scope` (`scope NUL key [LF value] NUL`…). */
export function parseConfigList(out: string): ConfigEntry[] {
  const parts = out.split('\0');
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const scope = parts[i]!;
    const kv = parts[i + 1]!;
    const nl = kv.indexOf('\n');
    entries.push(nl < 0 ? { scope, key: kv } : { scope, key: kv.slice(0, nl), value: kv.slice(nl + 1) });
  }
  return entries;
}

/** Split `section.sub.sec.name` into section, subsection (may hold dots) and name. */
function splitKey(key: string): { section: string; sub?: string; name: string } {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first < 0) return { section: key.toLowerCase(), name: '' };
  const section = key.slice(0, first).toLowerCase();
  const name = key.slice(last + 1).toLowerCase();
  return last > first ? { section, sub: key.slice(first + 1, last), name } : { section, name };
}

const SIMPLE: Record<string, string> = {
  'core.sshcommand': 'ssh',
  'core.askpass': '',
  'core.editor': ':',
  'sequence.editor': ':',
  'core.gitproxy': 'none',
  'core.alternaterefscommand': '',
  'diff.external': '',
  'credential.helper': '',
  'gpg.program': 'gpg',
  'gpg.openpgp.program': 'gpg',
  'gpg.x509.program': 'gpgsm',
  'gpg.ssh.program': 'ssh-keygen',
  'gpg.ssh.defaultkeycommand': '',
  'sendemail.tocmd': '',
  'sendemail.cccmd': '',
  'sendemail.headercmd': '',
  'interactive.difffilter': '',
  'imap.tunnel': '',
  'instaweb.httpd': '',
};

/** The overrides for one entry (none when it runs no program). */
function overridesFor(entry: ConfigEntry): GitSetting[] {
  const { section, sub, name } = splitKey(entry.key);
  const simple = SIMPLE[sub === undefined ? `${section}.${name}` : `${section}.${sub.toLowerCase()}.${name}`];
  if (simple !== undefined && (sub === undefined || section === 'gpg')) return [[entry.key, simple]];
  if (sub === undefined) return section === 'alias' || section === 'pager' ? [[entry.key, '']] : [];
  const prefix = `${section}.${sub}`;
  switch (section) {
    case 'filter':
      return name === 'clean' || name === 'smudge' || name === 'process'
        ? [
            [entry.key, ''],
            [`${prefix}.required`, 'false'],
          ]
        : [];
    case 'diff':
      if (name === 'textconv') return [[entry.key, 'cat']];
      return name === 'command' ? [[entry.key, '']] : [];
    case 'merge':
      // A merge driver that always fails: the file is left as a conflict.
      return name === 'driver' ? [[entry.key, 'false']] : [];
    case 'credential':
      return name === 'helper' ? [[entry.key, '']] : [];
    case 'remote':
      // The first uploadpack / receivepack given wins (git says so), so no later value replaces
      // it; the program runs here only for a remote on this machine, which this refuses.
      if (name === 'uploadpack' || name === 'receivepack') return [['protocol.file.allow', 'never']];
      return name === 'vcs' ? [[entry.key, '']] : [];
    case 'submodule':
      // `update = !command` runs the command on `git submodule update`.
      return name === 'update' && entry.value?.trimStart().startsWith('!') ? [[entry.key, 'checkout']] : [];
    case 'trailer':
      // `cmd` / `command` run for each trailer of the token (`git commit --trailer`, interpret-trailers).
      return name === 'cmd' || name === 'command' ? [[entry.key, '']] : [];
    case 'tar':
      // `tar.<format>.command` compresses `git archive --format=<format>`: empty, the archive fails.
      return name === 'command' ? [[entry.key, '']] : [];
    case 'difftool':
    case 'mergetool':
    case 'guitool':
    case 'man':
    case 'browser':
      return name === 'cmd' || name === 'path' ? [[entry.key, '']] : [];
    case 'alias':
    case 'pager':
      // `alias.a.b` / `pager.a.b`: git's name is everything after the section.
      return [[entry.key, '']];
    default:
      return [];
  }
}

const USER_SCOPES = new Set(['system', 'global', 'command']);

/**
 * The overrides for `entries` (the config git will read), after ALWAYS, each key once. With
 * `repository`, entries of the user's own scopes are left alone. `submodules` names the
 * submodules (from `.gitmodules` and config), each kept from recursing (`ignore=dirty` beats
 * their `.gitmodules` setting, as config does).
 */
export function neutralisingSettings(entries: readonly ConfigEntry[], scope: NeutraliseScope, submodules: readonly string[] = []): GitSetting[] {
  const out = new Map<string, string>(ALWAYS.map(([k, v]) => [k, v]));
  for (const entry of entries) {
    if (scope === 'repository' && USER_SCOPES.has(entry.scope)) continue;
    for (const [k, v] of overridesFor(entry)) if (!out.has(k)) out.set(k, v);
  }
  for (const name of submodules) out.set(`submodule.${name}.ignore`, 'dirty');
  return [...out];
}

/** Submodule names in `entries` (`submodule.<name>.<key>`). */
export function submoduleNames(entries: readonly ConfigEntry[]): string[] {
  const names = new Set<string>();
  for (const e of entries) {
    const { section, sub } = splitKey(e.key);
    if (section === 'submodule' && sub !== undefined) names.add(sub);
  }
  return [...names];
}

/**
 * `settings` as environment (`GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_n`, `GIT_CONFIG_VALUE_n`),
 * appended after the pairs `base` already holds. Command-scope config: it beats every file.
 */
export function settingsEnv(settings: readonly GitSetting[], base: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const start = Number.parseInt(base.GIT_CONFIG_COUNT ?? '', 10);
  let n = Number.isInteger(start) && start > 0 ? start : 0;
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of settings) {
    out[`GIT_CONFIG_KEY_${n}`] = key;
    out[`GIT_CONFIG_VALUE_${n}`] = value;
    n++;
  }
  out.GIT_CONFIG_COUNT = String(n);
  return out;
}
