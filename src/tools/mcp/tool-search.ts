import * as z from 'zod';
import type { ToolDefinition } from '../../core/provider.js';
import { defineTool, type Tool } from '../registry.js';
import type { LoadedTools } from './loaded-tools.js';

export const TOOL_SEARCH_NAME = 'mcp_tool_search';

/** Matches one search returns unless the model asks for more; and the most it may ask for. */
const DEFAULT_MATCHES = 5;
const MAX_MATCHES = 20;

/** Words of a query or a tool's text: lower case, split at anything but letters and digits. */
function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** Whether a query word names a word of a tool's text: the same word, or (3+ letters) its start. */
function matches(term: string, text: ReadonlySet<string>): boolean {
  if (text.has(term)) return true;
  if (term.length < 3) return false;
  for (const w of text) if (w.startsWith(term)) return true;
  return false;
}

/**
 * The definitions that best match `query`, best first: `select:a,b` names tools exactly (the
 * full `mcp__server__tool` name or the server's own tool name); otherwise each query word found
 * in a tool's name scores 3 and in its description 1, and the tools scoring at least half the
 * best score are kept, ties in the servers' order.
 */
export function rankTools(defs: readonly ToolDefinition[], query: string, limit: number): ToolDefinition[] {
  const q = query.trim();
  if (q.toLowerCase().startsWith('select:')) {
    const wanted = q
      .slice('select:'.length)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    return wanted.flatMap((w) => defs.find((d) => d.name === w) ?? defs.find((d) => d.name.endsWith(`__${w}`)) ?? []).slice(0, limit);
  }
  // Single letters ("a", "x") match too much to mean anything.
  const terms = [...new Set(words(q))].filter((t) => t.length > 1);
  if (terms.length === 0) return [];
  const scored: { def: ToolDefinition; score: number; index: number }[] = [];
  defs.forEach((def, index) => {
    const name = new Set(words(def.name));
    const description = new Set(words(def.description));
    let score = 0;
    for (const t of terms) score += (matches(t, name) ? 3 : 0) + (matches(t, description) ? 1 : 0);
    if (score > 0) scored.push({ def, score, index });
  });
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  const best = scored[0]?.score ?? 0;
  return scored
    .filter((s) => s.score * 2 >= best)
    .slice(0, limit)
    .map((s) => s.def);
}

/** The search result the model reads: each match's name, description and input schema. */
function describeMatches(matches: readonly ToolDefinition[]): string {
  return [
    `Loaded ${matches.length} tool${matches.length === 1 ? '' : 's'}; call ${matches.length === 1 ? 'it' : 'them'} by name from your next step on:`,
    ...matches.map((d) => `\n${d.name}\n${d.description}\ninput schema: ${JSON.stringify(d.input_schema)}`),
  ].join('\n');
}

export interface ToolSearchOptions {
  /** The definitions of every MCP tool the servers offer now. */
  definitions: () => readonly ToolDefinition[];
  /** The servers behind them (named in the description). */
  servers: () => readonly string[];
  loaded: LoadedTools;
}

/**
 * `mcp_tool_search`: finds deferred MCP tools and loads them — they join the request's tool list
 * from the next request on, and stay loaded for the session (LoadedTools).
 */
export function createToolSearchTool(opts: ToolSearchOptions): Tool {
  const count = opts.definitions().length;
  return defineTool({
    name: TOOL_SEARCH_NAME,
    description: [
      `Find and load MCP tools. ${count} tools of the MCP servers ${opts.servers().join(', ')} are not offered until loaded here.`,
      'Search with words from the task ("create issue", "query database"), or name tools exactly with "select:<name>,<name>".',
      'The matches come back with their descriptions and input schemas, and can be called from the next step on.',
    ].join(' '),
    schema: z.object({
      query: z.string().min(1).describe('words describing the tool you need, or "select:" and exact tool names'),
      limit: z.number().int().min(1).max(MAX_MATCHES).optional().describe(`how many matches to load (default ${DEFAULT_MATCHES})`),
    }),
    mutating: false,
    run: async ({ query, limit }) => {
      const matches = rankTools(opts.definitions(), query, limit ?? DEFAULT_MATCHES);
      if (matches.length === 0) return `No MCP tool matches "${query}". Try other words, or fewer.`;
      opts.loaded.add(matches.map((d) => d.name));
      return describeMatches(matches);
    },
  });
}
