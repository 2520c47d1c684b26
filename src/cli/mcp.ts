import { readFileSync, mkdirSync, writeFileSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { keenHome, userConfigPath } from '../config/paths.js';
import { readConfigFile } from '../config/load.js';
import { configSchema } from '../config/schema.js';
import { KeenError } from '../errors.js';
import { forStream } from '../security/terminal-text.js';
import type { McpServerEntry } from '../tools/mcp/config-schema.js';
import { MCP_SERVER_NAME } from '../tools/mcp/config-schema.js';
import type { McpCommandFlags } from '../agent/flags.js';

/**
 * `keen mcp list | add | remove`. `list` starts every configured server (as a session would),
 * waits up to `mcp.startupTimeoutMs`, prints one line per server and closes them. `add` and
 * `remove` edit `mcpServers` in the user config (`$KEEN_HOME/config.json`).
 */
export async function runMcpCommand(action: string, args: string[], flags: McpCommandFlags): Promise<number> {
  const home = keenHome(process.env);
  switch (action) {
    case 'list':
      return listServers(home, flags);
    case 'add':
      return addServer(home, args, flags);
    case 'remove':
      return removeServer(home, args);
    default:
      throw new KeenError(`unknown mcp action "${action}": use keen mcp list, keen mcp add or keen mcp remove`, 2);
  }
}

async function listServers(home: string, flags: McpCommandFlags): Promise<number> {
  const cwd = process.cwd();
  const { loadServerSources } = await import('../tools/mcp/load-sources.js');
  const { resolveServers } = await import('../tools/mcp/servers.js');
  const { McpManager } = await import('../tools/mcp/manager.js');
  const { inheritedEnv } = await import('../tools/mcp/index.js');
  const { credentialNamesOf } = await import('../config/project-limits.js');
  const config = readConfigFile(userConfigPath(home));
  const sources = loadServerSources(home, cwd, flags.mcpConfig);
  const { resolveTrust } = await import('../config/trust.js');
  const projectTrusted = resolveTrust(home, cwd, { trustFlag: flags.trust, yolo: flags.yolo });
  // As a session starts them: the variables the user's config names as keys reach no project server.
  const credentialNames = credentialNamesOf(config);
  const resolved = resolveServers(sources, { projectTrusted, env: process.env, cwd, credentialNames });
  const env = inheritedEnv(process.env, credentialNames);
  const manager = new McpManager({ servers: resolved.servers, broken: resolved.broken, settings: config.mcp, env, warn: () => undefined });
  try {
    await manager.waitForStartup();
    // Names come from config files and errors from servers: sanitised before they are measured and printed.
    const rows = manager.status().map((s) => [s.name, s.transport, s.state, `${s.tools} tools`, s.error ?? ''].map((cell) => forStream(process.stdout, cell)));
    for (const name of resolved.skipped) rows.push([forStream(process.stdout, name), '', 'skipped', '', 'project not trusted (run with --yolo to use it)']);
    for (const name of resolved.disabled) rows.push([forStream(process.stdout, name), '', 'disabled', '', '']);
    if (rows.length === 0) {
      process.stdout.write('No MCP servers configured. Add one with `keen mcp add NAME -- COMMAND [ARGS...]`.\n');
      return 0;
    }
    const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i].length)));
    for (const r of rows) {
      process.stdout.write(
        `${r
          .map((cell, i) => (i < 4 ? cell.padEnd(widths[i]) : cell))
          .join('  ')
          .trimEnd()}\n`,
      );
    }
    return 0;
  } finally {
    await manager.close();
  }
}

function addServer(home: string, args: string[], flags: McpCommandFlags): number {
  const transport = flags.transport ?? 'stdio';
  if (!['stdio', 'http', 'sse'].includes(transport)) throw new KeenError(`unknown transport "${transport}": use stdio, http or sse`, 2);
  const [name, ...afterName] = args;
  // `keen mcp add NAME -- CMD ARGS...`: the `--` only ends Keen's options.
  const rest = afterName[0] === '--' ? afterName.slice(1) : afterName;
  if (!name) throw new KeenError('keen mcp add needs a name: keen mcp add NAME -- COMMAND [ARGS...]', 2);
  if (!MCP_SERVER_NAME.test(name)) throw new KeenError(`invalid server name "${name}": use letters, digits, "-" and "_" (no "__"), at most 40`, 2);
  let entry: McpServerEntry;
  if (transport === 'stdio') {
    if (rest.length === 0) throw new KeenError(`keen mcp add ${name} needs a command: keen mcp add ${name} -- COMMAND [ARGS...]`, 2);
    if (flags.header.length) throw new KeenError('--header is for http and sse servers', 2);
    entry = { command: rest[0], ...(rest.length > 1 ? { args: rest.slice(1) } : {}) };
    if (flags.env.length) entry.env = pairs(flags.env, '=', '--env');
  } else {
    if (rest.length !== 1) throw new KeenError(`keen mcp add --transport ${transport} ${name} needs exactly one URL`, 2);
    if (flags.env.length) throw new KeenError('--env is for stdio servers', 2);
    entry = { type: transport as 'http' | 'sse', url: rest[0] };
    if (flags.header.length) entry.headers = pairs(flags.header, ':', '--header');
  }
  const file = userConfigPath(home);
  const raw = readRaw(file);
  const servers = (raw.mcpServers ?? {}) as Record<string, unknown>;
  if (name in servers) throw new KeenError(`an MCP server named "${name}" is already in ${file}; remove it first (keen mcp remove ${name})`);
  raw.mcpServers = { ...servers, [name]: entry };
  writeValidated(file, raw);
  process.stdout.write(`Added MCP server "${name}" (${transport}) to ${file}.\n`);
  return 0;
}

function removeServer(home: string, args: string[]): number {
  const [name] = args;
  if (!name || args.length !== 1) throw new KeenError('keen mcp remove needs exactly one server name', 2);
  const file = userConfigPath(home);
  const raw = readRaw(file);
  const servers = { ...((raw.mcpServers ?? {}) as Record<string, unknown>) };
  if (!(name in servers)) {
    throw new KeenError(`no MCP server named "${name}" in ${file} (servers of a project live in its .mcp.json or .keen/config.json)`);
  }
  delete servers[name];
  raw.mcpServers = servers;
  writeValidated(file, raw);
  process.stdout.write(`Removed MCP server "${name}" from ${file}.\n`);
  return 0;
}

function pairs(items: string[], sep: string, flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    const k = item.indexOf(sep);
    if (k <= 0) throw new KeenError(`${flag} "${item}" must look like ${sep === '=' ? 'KEY=VALUE' : 'Name: value'}`, 2);
    out[item.slice(0, k).trim()] = item.slice(k + 1).trim();
  }
  return out;
}

/** The user config as plain JSON (validated first, so a broken file is named, never overwritten). */
function readRaw(file: string): Record<string, unknown> {
  readConfigFile(file);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
}

/** Check the result is a valid config, then write through a temp file and rename. */
function writeValidated(file: string, raw: Record<string, unknown>): void {
  const parsed = configSchema().safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new KeenError(`cannot write ${file}: field ${issue.path.join('.')}: ${issue.message}`);
  }
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, `${JSON.stringify(raw, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new KeenError(`cannot write ${file}: ${(err as Error).message}`);
  }
}
