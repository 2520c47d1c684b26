/**
 * Small parts the session-open steps share, one concern each: the inspect-only adapter, MCP
 * startup, the permission policy, the bash tool's sandbox and environment, and the secrets to
 * redact.
 */
import { existsSync, readFileSync } from 'node:fs';
import { codexCliAuthPath, keenAuthPath } from '../auth/codex-credentials.js';
import { KeenError } from '../errors.js';
import { forStream } from '../security/terminal-text.js';
import { secretValues } from '../transcript/redact.js';
import type { ConfigFiles } from '../config/load.js';
import { keenHome, projectMcpJsonPath } from '../config/paths.js';
import type { KeenConfig } from '../config/schema.js';
import type { ProviderAdapter } from '../core/provider.js';
import type { BashToolOptions } from '../tools/bash.js';
import type { McpServerEntry } from '../config/mcp-schema.js';
import type { McpManager } from '../tools/mcp/manager.js';
import { loadServerSources } from '../tools/mcp/load-sources.js';
import { buildPolicy, type Policy } from '../tools/permissions/index.js';
import { DEFAULT_SANDBOX } from '../tools/sandbox/index.js';
import type { SessionFlags } from './flags.js';

/** What of openSession's options the wiring reads (OpenSessionOptions satisfies it). */
interface WiringOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  flags: SessionFlags;
  interactive: boolean;
  onWarning?: (line: string) => void;
  mcpServers?: Record<string, McpServerEntry>;
}

/** The adapter of a session opened for inspection: it refuses to talk to a model. */
export function inspectOnlyAdapter(id: string): ProviderAdapter {
  return {
    id,
    open: () => Promise.reject(new KeenError('this session was opened to inspect it; no model can be reached from here')),
  };
}

/**
 * Start the configured MCP servers in the background (none configured: nothing is loaded).
 * Warnings raised while the session opens join `warnings`; later ones go to `opts.onWarning`.
 *
 * Workspace trust: a project's servers (`.mcp.json`, `.keen/config.json`) start only in a trusted
 * folder; user-config and `--mcp-config` servers are always trusted.
 */
export async function startMcp(
  opts: WiringOptions,
  home: string,
  config: KeenConfig,
  warnings: string[],
  projectTrusted: boolean,
  declared: boolean,
  files: ConfigFiles,
): Promise<McpManager | undefined> {
  // Nothing declares a server (config files, `.mcp.json`, `--mcp-config`): the MCP code stays unloaded.
  const fromEditor = Object.keys(opts.mcpServers ?? {}).length > 0;
  if (!declared && !fromEditor && !opts.flags.mcpConfig?.length && !existsSync(projectMcpJsonPath(opts.cwd))) return undefined;
  const { openMcp } = await import('../tools/mcp/index.js');
  let opening = true;
  const late =
    opts.onWarning ??
    ((line: string) => {
      if (!opts.interactive) process.stderr.write(forStream(process.stderr, `keen: warning: ${line}\n`));
    });
  const manager = await openMcp({
    home,
    cwd: opts.cwd,
    env: opts.env,
    flagFiles: opts.flags.mcpConfig,
    editorServers: opts.mcpServers,
    configFiles: files,
    projectTrusted,
    settings: config.mcp,
    warn: (line) => (opening ? warnings.push(line) : late(line)),
  });
  opening = false;
  return manager;
}

/**
 * The run's permission policy from the user's and the project's config (kept apart, since only the
 * user's own rules may unlock protected paths and project allows need trust) and the flags. Trust
 * is workspace trust (src/config/trust.ts): `--trust`, a folder trusted earlier, or `--yolo`.
 * `files` are the config files as `loadConfig` read them (the project's unfiltered).
 */
export function permissionPolicy(home: string, opts: WiringOptions, projectTrusted: boolean, files: ConfigFiles): Policy {
  const user = files.user.permissions;
  const project = files.project.permissions;
  const rules = [user, project].flatMap((p) => [...(p?.allow ?? []), ...(p?.ask ?? []), ...(p?.deny ?? [])]);
  rules.push(...(opts.flags.allowedTools ?? []), ...(opts.flags.disallowedTools ?? []));
  return buildPolicy({
    mcpServers: rules.some((r) => r.includes('mcp__')) ? configuredServers(home, opts, files) : [],
    mode: opts.flags.permissionMode,
    yolo: opts.flags.yolo,
    user,
    project,
    allowedTools: opts.flags.allowedTools,
    disallowedTools: opts.flags.disallowedTools,
    addDirs: opts.flags.addDir,
    projectTrusted,
    cwd: opts.cwd,
    keenHome: home,
  });
}

/**
 * The names of every MCP server a config file, `.mcp.json` or `--mcp-config` declares (trusted
 * or not: a rule naming a skipped project server is a rule about a real server).
 */
function configuredServers(home: string, opts: WiringOptions, files: ConfigFiles): string[] {
  const sources = loadServerSources(home, opts.cwd, opts.flags.mcpConfig, files);
  return [...new Set(sources.flatMap((s) => Object.keys(s.servers ?? {})))];
}

/**
 * The bash tool's sandbox and environment rules: from the user's config, and from the project's
 * only when it is trusted (a repository must not turn the sandbox off or pass secrets through).
 */
export function bashToolOptions(config: KeenConfig, home: string, trusted: boolean, files: ConfigFiles): BashToolOptions {
  const user = files.user;
  const project = trusted ? files.project : {};
  // A project may tighten or loosen mode and network once trusted, but never opens host sockets.
  const { hostSockets: _projectSockets, ...projectSandbox } = project.sandbox ?? {};
  const sandbox = { ...DEFAULT_SANDBOX, ...stripUndefined(user.sandbox ?? {}), ...stripUndefined(projectSandbox), hostSockets: user.sandbox?.hostSockets };
  const names = [...Object.values(config.models ?? {}), ...Object.values(config.providers ?? {})].flatMap((e) => (e?.apiKeyEnv ? [e.apiKeyEnv] : []));
  return {
    sandbox,
    keenHome: home,
    env: { passthrough: [...(user.bash?.envPassthrough ?? []), ...(project.bash?.envPassthrough ?? [])], withhold: names },
  };
}

/**
 * Values of the variables that config names as holding keys, and the tokens in Keen's and the
 * Codex CLI's auth files: redacted from transcripts, errors and JSON output too.
 */
export function configSecrets(config: KeenConfig, env: NodeJS.ProcessEnv, home = keenHome(env)): string[] {
  const names = [...Object.values(config.models ?? {}), ...Object.values(config.providers ?? {})].map((e) => e?.apiKeyEnv);
  const fromEnv = names.flatMap((n) => (n && env[n] ? [env[n] as string] : []));
  return [...fromEnv, ...authFileTokens([keenAuthPath(home), codexCliAuthPath(env)])];
}

/** Every string of 16+ characters inside a `tokens` object of the given JSON files (missing files: none). */
function authFileTokens(files: string[]): string[] {
  const out: string[] = [];
  const walk = (value: unknown, inTokens: boolean): void => {
    if (typeof value === 'string') {
      if (inTokens && value.length >= 16) out.push(value);
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, inTokens || k === 'tokens');
    }
  };
  for (const file of files) {
    try {
      walk(JSON.parse(readFileSync(file, 'utf8')), false);
    } catch {
      // no such file, or not JSON: nothing to redact from it
    }
  }
  return out;
}

export function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * The secrets of a session: `store`, what a new transcript is told to redact (config keys and the
 * model's API key); `redacted`, those plus the environment's secret-looking values, found once.
 */
export function sessionSecrets(config: KeenConfig, env: NodeJS.ProcessEnv, apiKey: string | undefined): { store: string[]; redacted: string[] } {
  const store = [...configSecrets(config, env), ...(apiKey ? [apiKey] : [])];
  return { store, redacted: secretValues(env, store) };
}
