/**
 * MCP for a session: which servers to start (config files, `.mcp.json`, `--mcp-config`, trust),
 * and the manager that runs them. Loaded with `import()` so sessions without servers never load
 * the MCP SDK; the manager (and the SDK, image-size) loads only when a server is configured.
 */
import { readConfigFile, type ConfigFiles } from '../../config/load.js';
import { userConfigPath } from '../../config/paths.js';
import { credentialNamesOf } from '../../config/project-limits.js';
import { isCredentialName } from '../../security/credential-names.js';
import type { McpServerEntry, McpSettings } from './config-schema.js';
import { loadServerSources } from './load-sources.js';
import type { McpManager } from './manager.js';
import { resolveServers } from './servers.js';

export interface OpenMcpOptions {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** `--mcp-config` files, relative to `cwd`. */
  flagFiles?: readonly string[];
  /** Servers an editor passed (ACP `session/new`): user authority, applied last, no credential expanded. */
  editorServers?: Record<string, McpServerEntry>;
  /** The config files as the session already read them (see loadServerSources); read again when absent. */
  configFiles?: ConfigFiles;
  /**
   * Whether servers from the project's `.mcp.json` and `.keen/config.json` may start. The
   * workspace-trust decision belongs to the caller.
   */
  projectTrusted: boolean;
  settings?: McpSettings;
  warn(line: string): void;
}

/**
 * Resolve the session's servers and start them (in the background: the SDK loads and the servers
 * connect while the session goes on). Returns undefined when no server is configured. Untrusted project servers are named in one
 * warning line. Throws a KeenError for an unreadable or invalid `.mcp.json` or `--mcp-config` file.
 */
export async function openMcp(opts: OpenMcpOptions): Promise<McpManager | undefined> {
  const sources = loadServerSources(opts.home, opts.cwd, opts.flagFiles, opts.configFiles);
  if (opts.editorServers) sources.push({ origin: 'editor', file: 'the editor (session/new)', servers: opts.editorServers });
  const credentialNames = credentialNamesOf(opts.configFiles?.user ?? readConfigFile(userConfigPath(opts.home)));
  const resolved = resolveServers(sources, { projectTrusted: opts.projectTrusted, env: opts.env, cwd: opts.cwd, credentialNames });
  if (resolved.skipped.length) {
    opts.warn(`MCP servers of this project skipped (the project is not trusted): ${resolved.skipped.join(', ')}; trust the folder (--trust; the REPL asks once) to use them`);
  }
  for (const r of resolved.refused) {
    const vars = r.variables.map((v) => `\${${v}}`).join(', ');
    opts.warn(`MCP server ${r.name} (${r.file}) starts without ${vars}: only servers in your own config get credentials`);
  }
  if (resolved.servers.length === 0 && resolved.broken.length === 0) return undefined;
  const { McpManager } = await import('./manager.js');
  // Servers inherit the environment without any credential; a user's server names the ones it needs in its `env`.
  const env = inheritedEnv(opts.env, credentialNames);
  const manager = new McpManager({ servers: resolved.servers, broken: resolved.broken, settings: opts.settings, env, warn: opts.warn });
  manager.start();
  return manager;
}

/** `env` without the variables that hold credentials (`isCredentialName`). */
export function inheritedEnv(env: NodeJS.ProcessEnv, credentialNames: readonly string[]): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !isCredentialName(name, credentialNames)));
}
