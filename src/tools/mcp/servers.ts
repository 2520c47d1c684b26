import { resolve, dirname } from 'node:path';
import { isCredentialName } from '../../security/credential-names.js';
import type { McpServerEntry } from './config-schema.js';
import { expandVars } from './expand.js';

/**
 * Where a server entry was read from; decides whether it needs workspace trust. `editor`: an ACP
 * client's `mcpServers` (the user's editor: no trust needed, but no credential variable expanded).
 */
export type ServerOrigin = 'user' | 'project' | 'flag' | 'editor';

/** One file's `mcpServers`, with where it came from. */
export interface ServerSource {
  origin: ServerOrigin;
  /** The file, for messages. */
  file: string;
  servers: Record<string, McpServerEntry> | undefined;
}

/** A server ready to start: variables expanded, transport known. */
export type ServerSpec =
  | { name: string; file: string; transport: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd: string }
  | { name: string; file: string; transport: 'http' | 'sse'; url: string; headers: Record<string, string> };

/** A server that cannot start as configured (an unset variable, a bad url). */
export interface BrokenServer {
  name: string;
  transport: 'stdio' | 'http' | 'sse';
  error: string;
}

export interface ResolvedServers {
  servers: ServerSpec[];
  broken: BrokenServer[];
  /** Servers of an untrusted project, not started. */
  skipped: string[];
  /** Servers turned off with `disabled: true`. */
  disabled: string[];
  /** Credential variables a server outside the user's own config named and did not get. */
  refused: { name: string; file: string; variables: string[] }[];
}

export interface ResolveOptions {
  projectTrusted: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The user's `apiKeyEnv` variables: credentials besides Keen's own and secret-looking names. */
  credentialNames?: readonly string[];
}

/**
 * Decide which servers a session starts. Sources are applied in order (user config, project
 * `.mcp.json`, project `.keen/config.json`, `--mcp-config` files): a later entry of the same name
 * replaces an earlier one, and `disabled: true` from any trusted source turns the name off.
 * Project sources count only when `projectTrusted`; otherwise their servers are listed in
 * `skipped`. Only servers of the user's own config (or a `--mcp-config` file the user named) may
 * expand a credential variable (`isCredentialName`); a project's server starts without it: an
 * `env` entry or header using one is left out, a use in `args` or `url` expands to nothing, and
 * `refused` names it. Pure: the environment and the session directory are inputs.
 */
export function resolveServers(sources: readonly ServerSource[], options: ResolveOptions): ResolvedServers {
  const chosen = new Map<string, { entry: McpServerEntry; file: string; origin: ServerOrigin }>();
  const off = new Set<string>();
  const skipped = new Set<string>();
  for (const source of sources) {
    for (const [name, entry] of Object.entries(source.servers ?? {})) {
      if (source.origin === 'project' && !options.projectTrusted) {
        skipped.add(name);
        continue;
      }
      if (entry.disabled) off.add(name);
      if (entry.command !== undefined || entry.url !== undefined) chosen.set(name, { entry, file: source.file, origin: source.origin });
    }
  }
  const out: ResolvedServers = { servers: [], broken: [], skipped: [], disabled: [], refused: [] };
  for (const name of skipped) if (!chosen.has(name) && !off.has(name)) out.skipped.push(name);
  for (const [name, { entry, file, origin }] of chosen) {
    if (off.has(name)) {
      out.disabled.push(name);
      continue;
    }
    const refused = new Set<string>();
    const refuse = origin === 'project' || origin === 'editor' ? (v: string) => isCredentialName(v, options.credentialNames) : () => false;
    const spec = toSpec(name, entry, file, options, refuse, refused);
    if (refused.size > 0) out.refused.push({ name, file, variables: [...refused] });
    if ('error' in spec) out.broken.push(spec.error);
    else out.servers.push(spec);
  }
  return out;
}

function toSpec(
  name: string,
  entry: McpServerEntry,
  file: string,
  options: { env: NodeJS.ProcessEnv; cwd: string },
  refuse: (variable: string) => boolean,
  refused: Set<string>,
): ServerSpec | { error: BrokenServer } {
  const transport = entry.type ?? 'stdio';
  const missing = new Set<string>();
  const expandOne = (text: string) => {
    const r = expandVars(text, options.env, refuse);
    for (const m of r.missing) missing.add(m);
    for (const m of r.refused) refused.add(m);
    return r;
  };
  const expand = (text: string) => expandOne(text).value;
  // An entry that would carry a refused credential is left out whole, not sent half-empty.
  const expandMap = (map: Record<string, string> | undefined) =>
    Object.fromEntries(
      Object.entries(map ?? {}).flatMap(([k, v]) => {
        const r = expandOne(v);
        return r.refused.length > 0 ? [] : [[k, r.value]];
      }),
    );
  const fail = (error: string) => ({ error: { name, transport, error } });

  if (transport === 'stdio') {
    const command = expand(entry.command ?? '');
    const args = (entry.args ?? []).map(expand);
    const env = expandMap(entry.env);
    if (missing.size) return fail(`${[...missing].join(', ')} not set (used in ${file})`);
    // A relative cwd is relative to the file that names it.
    const cwd = entry.cwd ? resolve(dirname(file), entry.cwd) : options.cwd;
    return { name, file, transport, command, args, env, cwd };
  }
  const url = expand(entry.url ?? '');
  const headers = expandMap(entry.headers);
  if (missing.size) return fail(`${[...missing].join(', ')} not set (used in ${file})`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail(`url "${url}" is not a valid URL (in ${file})`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return fail(`url "${url}" must be http or https (in ${file})`);
  return { name, file, transport, url, headers };
}
