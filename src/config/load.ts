import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { KeenError } from '../errors.js';
import { parseRule, warnAboutRule } from '../tools/permissions/rules.js';
import { isUsersOwnFile, projectConfigPath, userConfigPath } from './paths.js';
import { projectFileProblem } from './project-files.js';
import { filterProjectConfig, projectFilterNotice } from './project-filter.js';
import { stripNeverFromProject } from './project-limits.js';
import { configSchema, type KeenConfig } from './schema.js';

/** The merged config and what the project was (not) allowed to set. */
export interface LoadedConfig {
  config: KeenConfig;
  /** Whether the project folder is trusted for this run (see src/config/trust.ts). */
  projectTrusted: boolean;
  /** Project keys that were ignored (untrusted folder, or base URLs / key variables). */
  ignored: string[];
  /** The project keys that trusting the folder would enable (empty when trusted or nothing to enable). */
  needsTrust: string[];
  /** One line for the user naming what was ignored and how to trust the folder, if anything was. */
  notice?: string;
  /**
   * Whether either file declares `mcpServers` (the project's counts even when untrusted: its
   * servers are then named as skipped). With none, and no `.mcp.json` or `--mcp-config`, the MCP
   * code is not loaded at all.
   */
  declaresMcpServers: boolean;
  /**
   * Each file's validated contents as read (`{}` for a missing file), so the session open reads
   * and validates each once: the permission policy, the bash options and the MCP sources take
   * theirs from here. The project's is NOT filtered by trust (every reader applies
   * `projectTrusted` itself), only stripped of what a project may never set (`stripNeverFromProject`).
   */
  files: ConfigFiles;
}

/** The two config files' contents (see LoadedConfig.files). */
export interface ConfigFiles {
  user: KeenConfig;
  /** Repository content, authority only in a trusted folder; never credentials or an open sandbox. */
  project: KeenConfig;
}

export interface LoadConfigOptions {
  /** The folder's trust for this run (`resolveTrust`); default untrusted. */
  projectTrusted?: boolean;
}

/**
 * Loads `$KEEN_HOME/config.json` then `.keen/config.json` (the project wins). A missing file is
 * fine; unreadable JSON or a field that fails validation is a KeenError naming file and field.
 * The project file never sets `baseURL`/`apiKeyEnv`, credential `bash.envPassthrough` entries or
 * a looser sandbox, nor adds a directory outside the project (`stripNeverFromProject`), and its trust-gated keys (permissions, …)
 * count only when `projectTrusted` is true.
 */
export function loadConfig(home: string, cwd: string, options: LoadConfigOptions = {}): LoadedConfig {
  const projectTrusted = options.projectTrusted === true;
  const user = readConfigFile(userConfigPath(home));
  const projectFile = projectConfigPath(cwd);
  // In the home folder the project file is the user's own, read above.
  const own = isUsersOwnFile(projectFile, userConfigPath(home));
  const foreign = own ? undefined : projectFileProblem(cwd, projectFile);
  const stripped = stripNeverFromProject(foreign || own ? {} : readConfigFile(projectFile), user, cwd);
  const project = stripped.config;
  const filtered = filterProjectConfig(project, projectTrusted);
  return {
    config: mergeConfig(user, filtered.config),
    projectTrusted,
    ignored: [...filtered.untrusted, ...filtered.credentials, ...stripped.dropped],
    needsTrust: filtered.untrusted,
    notice: foreign
      ? `project config ${projectFile}: ignored: ${foreign} (only this account's own files inside the project count)`
      : projectFilterNotice(projectFile, { ...filtered, never: stripped.dropped }, userConfigPath(home)),
    declaresMcpServers: user.mcpServers !== undefined || project.mcpServers !== undefined,
    files: { user, project },
  };
}

export function readConfigFile(file: string): KeenConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new KeenError(`cannot read config ${file}: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    // Editors on Windows save UTF-8 with a byte-order mark; JSON.parse rejects it.
    raw = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new KeenError(`invalid JSON in config ${file}: ${(err as Error).message}`);
  }
  const parsed = configSchema().safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue.code === 'unrecognized_keys') {
      const names = issue.keys.map((k) => fieldName([...issue.path, k]));
      throw new KeenError(`invalid config ${file}: unknown field ${names.join(', ')}`);
    }
    const field = issue.path.length ? `field ${fieldName(issue.path)}` : 'the file must hold one JSON object';
    throw new KeenError(`invalid config ${file}: ${field}: ${issue.message}`);
  }
  // Rule syntax is checked here, not when the first tool call is gated, so the message names the
  // file and no session is started with a config that cannot work.
  for (const list of ['allow', 'ask', 'deny'] as const) {
    (parsed.data.permissions?.[list] ?? []).forEach((entry, i) => {
      try {
        parseRule(entry, homedir(), { mcpServers: 'any' });
        warnAboutRule(file, `permissions.${list}[${i}]`, entry);
      } catch (err) {
        throw new KeenError(`invalid config ${file}: field permissions.${list}[${i}]: ${(err as Error).message}`, err instanceof KeenError ? err.exitCode : 1);
      }
    });
  }
  return parsed.data;
}

/** `models.fast.contextWindow`, `permissions.allow[2]`. */
function fieldName(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

/**
 * Project settings win; `models`, `providers`, `compaction`, `permissions`, `mcpServers` and `mcp` merge per key
 * (`hooks`: both files' groups, per event), and
 * each `models.<name>` / `providers.<id>` entry merges field by field (so a project that adjusts a
 * model's context window keeps the user's own `baseURL` and `apiKeyEnv` for it).
 */
export function mergeConfig(base: KeenConfig, over: KeenConfig): KeenConfig {
  return {
    ...base,
    ...over,
    models: mergeEntries(base.models, over.models),
    providers: mergeEntries(base.providers, over.providers),
    compaction: { ...base.compaction, ...over.compaction },
    permissions: {
      ...base.permissions,
      ...over.permissions,
      allow: [...(base.permissions?.allow ?? []), ...(over.permissions?.allow ?? [])],
      ask: [...(base.permissions?.ask ?? []), ...(over.permissions?.ask ?? [])],
      deny: [...(base.permissions?.deny ?? []), ...(over.permissions?.deny ?? [])],
      additionalDirectories: [...(base.permissions?.additionalDirectories ?? []), ...(over.permissions?.additionalDirectories ?? [])],
    },
    sandbox: { ...base.sandbox, ...over.sandbox },
    bash: { envPassthrough: [...(base.bash?.envPassthrough ?? []), ...(over.bash?.envPassthrough ?? [])] },
    mcpServers: { ...base.mcpServers, ...over.mcpServers },
    mcp: { ...base.mcp, ...over.mcp },
    hooks: mergeHooks(base.hooks, over.hooks),
  };
}

/** Both files' hook groups run: the user's first, then the project's, per event. */
function mergeHooks(base: KeenConfig['hooks'], over: KeenConfig['hooks']): KeenConfig['hooks'] {
  if (!base && !over) return undefined;
  const out: NonNullable<KeenConfig['hooks']> = { ...base };
  for (const [event, groups] of Object.entries(over ?? {}) as [keyof typeof out, NonNullable<(typeof out)[keyof typeof out]>][]) {
    out[event] = [...(out[event] ?? []), ...groups];
  }
  return out;
}

function mergeEntries<T extends object>(base: Partial<Record<string, T>> | undefined, over: Partial<Record<string, T>> | undefined): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [name, entry] of Object.entries(base ?? {})) if (entry) out[name] = { ...entry };
  for (const [name, entry] of Object.entries(over ?? {})) if (entry) out[name] = { ...out[name], ...entry };
  return out;
}
