import { createToolRegistry, type Tool } from '../registry.js';
import type { ToolRegistry } from '../types.js';
import type { McpManager } from './manager.js';

/**
 * A registry of the built-in tools plus the MCP tools ready right now. `definitions()` reflects
 * the servers' current tool lists (a late server, a `tools/list_changed`), so each new request
 * offers what is there; `execute` finds tools the same way.
 */
export function createMcpAwareRegistry(builtins: Tool[], manager: McpManager): ToolRegistry {
  let version = -1;
  let current: ToolRegistry = createToolRegistry(builtins);
  const fresh = (): ToolRegistry => {
    if (version !== manager.version) {
      current = createToolRegistry([...builtins, ...manager.tools()]);
      version = manager.version;
    }
    return current;
  };
  return {
    definitions: () => fresh().definitions(),
    concurrent: (name) => fresh().concurrent?.(name) ?? false,
    execute: (call, ctx) => fresh().execute(call, ctx),
  };
}
