import * as z from 'zod';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { clipLine } from '../output-cap.js';
import type { Tool } from '../registry.js';
import type { ToolOutcome } from '../types.js';
import { mcpToolName } from './names.js';
import { adaptInputSchema } from './schema-adapt.js';

/** The longest description offered (a definition goes with every request once the tool is offered). */
const MAX_DESCRIPTION_CHARS = 4_000;

/** Any JSON object: the server validates its own arguments against its own schema. */
const anyObject = z.record(z.string(), z.unknown());

export type McpToolCaller = (server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<ToolOutcome>;

/**
 * An MCP tool as a Keen tool: `mcp__<server>__<tool>`, the server's description and input schema
 * (adapted where providers would refuse it, and then said so). Tools annotated
 * `readOnlyHint: true` run freely (and concurrently with their read-only neighbours); every other tool asks the permission gate, whose request names
 * the server and the tool and carries the arguments as detail.
 */
export function adaptMcpTool(server: string, tool: McpTool, call: McpToolCaller, name = mcpToolName(server, tool.name)): Tool {
  const { schema, changes } = adaptInputSchema(tool.inputSchema);
  const full = tool.description?.trim() || tool.annotations?.title || tool.title || `MCP tool ${tool.name}`;
  const base =
    full.length > MAX_DESCRIPTION_CHARS ? `${full.slice(0, MAX_DESCRIPTION_CHARS)}… (description cut at ${MAX_DESCRIPTION_CHARS.toLocaleString('en-US')} characters)` : full;
  const description = [`${base}`, `(MCP server "${server}", tool "${clipLine(tool.name, 200)}")`, ...changes.map((c) => `Note: ${c}.`)].join('\n');
  return {
    name,
    description,
    schema: anyObject,
    inputSchema: schema,
    mutating: tool.annotations?.readOnlyHint !== true,
    // Read-only calls of one reply run side by side (src/loop/concurrent-calls.ts); the rest one at a time.
    concurrent: tool.annotations?.readOnlyHint === true,
    describe: (args: Record<string, unknown>) => {
      const json = JSON.stringify(args);
      return {
        tool: name,
        // readOnlyHint tools run freely; every other MCP tool is a command that asks.
        access: tool.annotations?.readOnlyHint === true ? 'read' : 'exec',
        summary: clipLine(`${server} › ${tool.name} ${json === '{}' ? '' : json}`.trim(), 160),
        detail: JSON.stringify(args, null, 2),
      };
    },
    run: (args: Record<string, unknown>, ctx) => call(server, tool.name, args, ctx.signal),
  };
}
