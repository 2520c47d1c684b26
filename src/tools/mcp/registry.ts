import type { ToolDefinition } from '../../core/provider.js';
import { TokenEstimator } from '../../tokens/token-estimator.js';
import { createToolRegistry, type Tool } from '../registry.js';
import type { ToolRegistry } from '../types.js';
import { decideDeferral, deferralNotice, providerToolCap } from './deferral.js';
import type { LoadedTools } from './loaded-tools.js';
import type { McpManager } from './manager.js';
import { createToolSearchTool, TOOL_SEARCH_NAME } from './tool-search.js';

/**
 * What deferring needs to know of the session, shared by the session's registries (so the
 * notice is given once and the loaded tools are one set).
 */
export interface McpDeferral {
  /** The context window the definitions are measured against. */
  window: number;
  /** The provider (its tool cap, if any: ./deferral.ts). */
  provider: string;
  loaded: LoadedTools;
  /** Set once the deferral was announced. */
  announced?: boolean;
}

interface Snapshot {
  registry: ToolRegistry;
  /** Every definition the registry can run, the search tool's included when deferring. */
  all: ToolDefinition[];
  deferred: boolean;
}

/**
 * A registry of the built-in tools plus the MCP tools ready right now. `definitions()` reflects
 * the servers' current tool lists (a late server, a `tools/list_changed`), so each new request
 * offers what is there; `execute` finds tools the same way.
 *
 * With `deferral`, MCP tools whose definitions pass `mcp.deferToolsShare` of the window, or
 * would pass the provider's tool cap, are deferred: the request offers the built-ins,
 * `mcp_tool_search` and the MCP tools loaded with it (those the cap leaves room for, the latest
 * loaded kept). Built-in tools are never deferred. Every MCP tool stays callable by name.
 */
export function createMcpAwareRegistry(builtins: Tool[], manager: McpManager, deferral?: McpDeferral): ToolRegistry {
  const estimator = new TokenEstimator();
  const builtinNames = new Set(builtins.map((t) => t.name));
  let version = -1;
  let current: Snapshot = { registry: createToolRegistry(builtins), all: [], deferred: false };
  let offered: { loadedVersion: number; defs: ToolDefinition[] } | undefined;

  const snapshot = (): Snapshot => {
    if (version === manager.version) return current;
    version = manager.version;
    offered = undefined;
    const mcpTools = manager.tools();
    const plain = createToolRegistry([...builtins, ...mcpTools]);
    const defs = plain.definitions();
    const mcpDefs = defs.filter((d) => !builtinNames.has(d.name));
    const decision = deferral
      ? decideDeferral({
          builtins: builtins.length,
          mcpTools: mcpTools.length,
          mcpTokens: estimator.tools(mcpDefs),
          window: deferral.window,
          share: manager.deferToolsShare,
          cap: providerToolCap(deferral.provider),
        })
      : { defer: false as const };
    if (!decision.defer || !deferral) {
      current = { registry: plain, all: defs, deferred: false };
      return current;
    }
    if (!deferral.announced) {
      deferral.announced = true;
      manager.notice(deferralNotice(mcpTools.length, decision.reason));
    }
    const servers = manager
      .status()
      .filter((s) => s.tools > 0)
      .map((s) => s.name);
    const search = createToolSearchTool({ definitions: () => mcpDefs, servers: () => servers, loaded: deferral.loaded });
    const searching = createToolRegistry([search]);
    const loaded = deferral.loaded;
    const mcpNames = new Set(mcpDefs.map((d) => d.name));
    // One registry over the search tool and the plain one, so the 2,000 definitions are built once.
    const registry: ToolRegistry = {
      definitions: () => [...defs.slice(0, builtins.length), ...searching.definitions(), ...mcpDefs],
      concurrent: (name) => plain.concurrent?.(name) ?? false,
      execute: (call, ctx) => {
        if (call.name === TOOL_SEARCH_NAME) return searching.execute(call, ctx);
        // A deferred tool called by name (known from before a compaction) is loaded like a found one.
        if (mcpNames.has(call.name)) loaded.add([call.name]);
        return plain.execute(call, ctx);
      },
    };
    current = { registry, all: registry.definitions(), deferred: true };
    return current;
  };

  const definitions = (): ToolDefinition[] => {
    const snap = snapshot();
    if (!snap.deferred || !deferral) return snap.registry.definitions();
    const loaded = deferral.loaded;
    if (offered?.loadedVersion !== loaded.version) {
      const fixed = snap.all.filter((d) => builtinNames.has(d.name) || d.name === TOOL_SEARCH_NAME);
      const cap = providerToolCap(deferral.provider);
      const room = cap === undefined ? Number.POSITIVE_INFINITY : Math.max(0, cap - fixed.length);
      const byName = new Map(snap.all.map((d) => [d.name, d]));
      const known = loaded.list().flatMap((n) => byName.get(n) ?? []);
      const chosen = room >= known.length ? known : known.slice(known.length - room);
      const keep = new Set(chosen.map((d) => d.name));
      offered = { loadedVersion: loaded.version, defs: snap.all.filter((d) => (!builtinNames.has(d.name) && d.name !== TOOL_SEARCH_NAME ? keep.has(d.name) : true)) };
    }
    return [...offered.defs];
  };

  return {
    definitions,
    concurrent: (name) => snapshot().registry.concurrent?.(name) ?? false,
    execute: (call, ctx) => snapshot().registry.execute(call, ctx),
  };
}
