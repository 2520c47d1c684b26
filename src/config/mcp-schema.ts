import * as z from 'zod';
import { once } from '../core/lazy.js';

/**
 * The shape of one MCP server entry, shared by `mcpServers` in Keen's config files, a project
 * `.mcp.json` and `--mcp-config` files (the format other agents already use):
 *
 * - stdio: `{ "command", "args"?, "env"?, "cwd"? }` (`"type": "stdio"` optional)
 * - Streamable HTTP: `{ "type": "http", "url", "headers"? }`
 * - legacy SSE: `{ "type": "sse", "url", "headers"? }`
 *
 * `disabled: true` turns a server off; an entry holding only `disabled: true` turns off a server
 * of the same name defined in another file. `${VAR}` (and `${VAR:-default}`) in `command`, `args`,
 * `env`, `headers` and `url` expand from the environment when the server starts.
 */
const buildEntrySchema = () =>
  z
    .strictObject({
      type: z.enum(['stdio', 'http', 'sse']).optional(),
      command: z.string().min(1).optional(),
      args: z.array(z.string()).optional(),
      env: z.record(z.string(), z.string()).optional(),
      cwd: z.string().min(1).optional(),
      url: z.string().min(1).optional(),
      headers: z.record(z.string(), z.string()).optional(),
      disabled: z.boolean().optional(),
    })
    .superRefine((entry, ctx) => {
      const type = entry.type ?? (entry.url !== undefined ? undefined : 'stdio');
      const onlyDisables = entry.disabled === true && entry.command === undefined && entry.url === undefined;
      if (onlyDisables) return;
      if (type === undefined) {
        ctx.addIssue({ code: 'custom', path: ['type'], message: 'a server with a url needs "type": "http" or "sse"' });
        return;
      }
      if (type === 'stdio') {
        if (entry.command === undefined) ctx.addIssue({ code: 'custom', path: ['command'], message: 'a stdio server needs a command' });
        for (const key of ['url', 'headers'] as const) {
          if (entry[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `${key} is for "type": "http" or "sse" servers` });
        }
        return;
      }
      if (entry.url === undefined) ctx.addIssue({ code: 'custom', path: ['url'], message: `a "${type}" server needs a url` });
      for (const key of ['command', 'args', 'env', 'cwd'] as const) {
        if (entry[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `${key} is for stdio servers` });
      }
    });

/** Server names: what every provider accepts inside a tool name, and no `__` (the separator). */
export const MCP_SERVER_NAME = /^(?!.*__)[A-Za-z0-9_-]{1,40}$/;

/**
 * `mcpServers`: built on first use (`z.lazy`), not when the config module loads — a run without
 * a config file never validates one, so building it is off the launch path. A lazy schema
 * parses, fails and converts to JSON Schema exactly as the one it wraps.
 */
export const mcpServersSchema = z.lazy(() =>
  z.record(z.string(), buildEntrySchema()).superRefine((servers, ctx) => {
    for (const name of Object.keys(servers)) {
      if (!MCP_SERVER_NAME.test(name)) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'server names use letters, digits, "-" and "_" (no "__"), at most 40' });
      }
    }
  }),
);

/** `mcp`: limits for every server (built at its first use). */
export const mcpSettingsSchema = once(() =>
  z.strictObject({
    /** How long the first request waits for servers still starting (default 5000). */
    startupTimeoutMs: z.number().int().nonnegative().optional(),
    /** How long one tool call may take before it is cancelled (default 120000). */
    toolTimeoutMs: z.number().int().positive().optional(),
    /**
     * The share of the context window the MCP tools' definitions may take before they are deferred
     * behind `mcp_tool_search` (default 0.1; 0 always defers, 1 only a provider's tool cap does).
     */
    deferToolsShare: z.number().min(0).max(1).optional(),
  }),
);

export type McpServerEntry = z.infer<ReturnType<typeof buildEntrySchema>>;
export type McpSettings = z.infer<ReturnType<typeof mcpSettingsSchema>>;

export const DEFAULT_STARTUP_TIMEOUT_MS = 5_000;
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;
export const DEFAULT_DEFER_TOOLS_SHARE = 0.1;
