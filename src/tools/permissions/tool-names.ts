import { closeNames } from '../../config/model-lookup.js';
import { compileGlob } from '../glob-match.js';

/**
 * The tool names a permission rule may name, and Claude Code's spellings of them. A rule that
 * names no tool matches nothing, so `"deny": ["Bassh"]` would silently protect nothing: every
 * rule's tool is checked against these names (and the configured MCP servers). Pure.
 */

/** Keen's built-in tools (src/tools/index.ts, remember, skill, recall, task). */
export const BUILTIN_TOOLS: readonly string[] = ['read_file', 'write_file', 'edit_file', 'glob', 'grep', 'bash', 'list_dir', 'web_fetch', 'task', 'recall', 'remember', 'skill'];

/** Claude Code's tool names, as users paste them from its settings, and Keen's tool for each. */
export const CLAUDE_TOOL_ALIASES: Readonly<Record<string, string>> = {
  Bash: 'bash',
  Read: 'read_file',
  Edit: 'edit_file',
  MultiEdit: 'edit_file',
  Write: 'write_file',
  LS: 'list_dir',
  Glob: 'glob',
  Grep: 'grep',
  WebFetch: 'web_fetch',
  Task: 'task',
};

/** Keen's name for `tool`: a Claude Code alias mapped, any other name unchanged. */
export function canonicalTool(tool: string): string {
  return Object.hasOwn(CLAUDE_TOOL_ALIASES, tool) ? CLAUDE_TOOL_ALIASES[tool] : tool;
}

/**
 * Which tools exist beyond the built-ins: the names of the configured MCP servers (their tools
 * are only known once they start, so any tool name under a configured server is accepted).
 */
export interface KnownTools {
  /** `any`: server names are not checked here (config load: the servers are known later). */
  mcpServers: readonly string[] | 'any';
}

const didYouMean = (close: string[]) => (close.length ? ` (did you mean ${close.join(', ')}?)` : '');

/**
 * Why a rule's (canonical) tool name matches no tool, or undefined when it may match one:
 * a built-in, a `*` glob matching a built-in, `mcp__SERVER`, `mcp__SERVER__TOOL` or
 * `mcp__SERVER__*` of a configured server (a `*` in the server part: any server).
 */
export function unknownToolReason(tool: string, known: KnownTools): string | undefined {
  if (tool.startsWith('mcp__')) {
    // Up to the `__` before the tool part, which never starts with `_` (src/tools/mcp/names.ts).
    const rest = tool.slice(5);
    const server = /^(.+?)__(?!_)/.exec(rest)?.[1] ?? rest;
    if (known.mcpServers === 'any' || server.includes('*') || known.mcpServers.includes(server)) return undefined;
    const configured = known.mcpServers.length ? `configured: ${known.mcpServers.join(', ')}` : 'none is configured';
    return `no MCP server "${server}" is configured (${configured})${didYouMean(closeNames(server, known.mcpServers))}`;
  }
  if (BUILTIN_TOOLS.includes(tool)) return undefined;
  if (tool.includes('*')) {
    const matches = compileGlob(tool);
    if (BUILTIN_TOOLS.some((t) => matches(t))) return undefined;
  }
  const close = closeNames(tool, [...BUILTIN_TOOLS, ...Object.keys(CLAUDE_TOOL_ALIASES)], 1).map(canonicalTool);
  return `no tool is named "${tool}"${didYouMean([...new Set(close)])}; tools: ${BUILTIN_TOOLS.join(', ')}, mcp__SERVER__TOOL`;
}
