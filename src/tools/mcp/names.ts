import { createHash } from 'node:crypto';

/** What every provider accepts as a tool name: `^[A-Za-z0-9_-]{1,64}$`. */
export const MAX_TOOL_NAME = 64;

export const MCP_PREFIX = 'mcp__';

function clean(part: string): string {
  const out = part.replace(/[^A-Za-z0-9_-]/g, '_');
  return out === '' ? '_' : out;
}

/**
 * `mcp__<server>__<tool>` with characters providers refuse replaced by `_`; a name longer than
 * 64 characters keeps its start and gets a short hash of the full name, so it stays unique. The
 * tool part never starts with `_`, so the name says which server it belongs to even when a
 * server's name ends in `_` (`mcp__a___x` is server `a_`'s; server `a`'s tool `_x` is
 * `mcp__a__x`): the permission rules read the server from the name (src/tools/permissions/rules.ts).
 */
export function mcpToolName(server: string, tool: string): string {
  const part = clean(tool).replace(/^_+/, '') || 'tool';
  const full = `${MCP_PREFIX}${clean(server)}__${part}`;
  if (full.length <= MAX_TOOL_NAME) return full;
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
  return `${full.slice(0, MAX_TOOL_NAME - hash.length - 1)}_${hash}`;
}

/** The name of a prompt's slash command (without the `/`). */
export function mcpPromptCommand(server: string, prompt: string): string {
  return `${MCP_PREFIX}${clean(server)}__${clean(prompt)}`;
}
