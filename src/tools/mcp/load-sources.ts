import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as z from 'zod';
import { readConfigFile, type ConfigFiles } from '../../config/load.js';
import { projectConfigPath, projectMcpJsonPath, userConfigPath } from '../../config/paths.js';
import { projectFileProblem } from '../../config/project-files.js';
import { once } from '../../core/lazy.js';
import { KeenError } from '../../errors.js';
import { mcpServersSchema } from './config-schema.js';
import type { ServerSource } from './servers.js';

/** The shared `.mcp.json` / `--mcp-config` format: `{"mcpServers": {...}}`, built at the first read. */
const mcpFileSchema = once(() => z.strictObject({ mcpServers: mcpServersSchema.optional() }));

/**
 * Read an `.mcp.json`-format file. A missing file is no servers when `optional`, else an error;
 * bad JSON or a bad entry is a one-line KeenError naming the file and the field.
 */
export function readMcpFile(file: string, optional: boolean): ServerSource['servers'] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if (optional && (err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new KeenError(`cannot read MCP config ${file}: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new KeenError(`invalid JSON in MCP config ${file}: ${(err as Error).message}`);
  }
  const parsed = mcpFileSchema().safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue.code === 'unrecognized_keys') {
      throw new KeenError(`invalid MCP config ${file}: unknown field ${issue.keys.map((k) => fieldName([...issue.path, k])).join(', ')}`);
    }
    const field = issue.path.length ? `field ${fieldName(issue.path)}` : 'the file must hold one JSON object';
    throw new KeenError(`invalid MCP config ${file}: ${field}: ${issue.message}`);
  }
  return parsed.data.mcpServers;
}

function fieldName(parts: readonly PropertyKey[]): string {
  let out = '';
  for (const part of parts) out += typeof part === 'number' ? `[${part}]` : out ? `.${String(part)}` : String(part);
  return out;
}

/**
 * Every place servers come from, in the order `resolveServers` applies them: the user's config,
 * the project's `.mcp.json`, the project's `.keen/config.json`, then each `--mcp-config` file.
 * `configFiles`: the two config files as the session's `loadConfig` already read and validated
 * them (not read again); without it they are read here, another account's project files not at all.
 */
export function loadServerSources(home: string, cwd: string, flagFiles: readonly string[] = [], configFiles?: ConfigFiles): ServerSource[] {
  const userFile = userConfigPath(home);
  const projectFile = projectConfigPath(cwd);
  const dotMcp = projectMcpJsonPath(cwd);
  const user = configFiles ? configFiles.user : readConfigFile(userFile);
  // Another account's `.keen/config.json` is not this project's (as `loadConfig` reads it).
  const project = () => (configFiles ? configFiles.project : projectFileProblem(cwd, projectFile) ? {} : readConfigFile(projectFile));
  return [
    { origin: 'user', file: userFile, servers: user.mcpServers },
    { origin: 'project', file: dotMcp, servers: projectFileProblem(cwd, dotMcp) ? undefined : readMcpFile(dotMcp, true) },
    { origin: 'project', file: projectFile, servers: project().mcpServers },
    ...flagFiles.map((f) => {
      const file = resolve(cwd, f);
      return { origin: 'flag' as const, file, servers: readMcpFile(file, false) };
    }),
  ];
}
