/**
 * The session's tools: the built-ins, remember and skill; the subagent runner behind `task`;
 * the parent's registry (those plus recall, task and the MCP servers' tools) and each child's,
 * both composed by buildRegistry (session-registry.ts).
 */
import type { Usage } from '../core/usage.js';
import type { ModeHolder } from '../project/agent-mode.js';
import type { ProjectContextSource } from '../project/project-context.js';
import { buildSystemPrompt } from '../project/system-prompt.js';
import type { BashToolOptions } from '../tools/bash.js';
import { createRememberTool, createSkillTool, createTaskTool, defaultTools, readOnlyToolSet } from '../tools/index.js';
import type { McpManager } from '../tools/mcp/manager.js';
import type { Tool } from '../tools/registry.js';
import type { EditorAccess, ToolRegistry } from '../tools/types.js';
import type { FileCheckpoints } from '../undo/file-checkpoints.js';
import type { SessionHooks } from '../hooks/session-hooks.js';
import type { SessionArtifacts } from './compaction-setup.js';
import { buildRegistry, type RegistryParts } from './session-registry.js';
import { createSubagentRunner, type ChildModel, type SubagentProgress } from './subagent-runner.js';

export interface ToolParts {
  cwd: string;
  bashOptions: BashToolOptions;
  /** The project context the tools read (memory paths, skills, agents): its newest read. */
  context: ProjectContextSource;
  mode: ModeHolder;
  checkpoints: FileCheckpoints;
  artifacts: SessionArtifacts;
  mcp?: McpManager;
  /** What deciding whether to defer MCP tools needs: the window and the provider (its tool cap). */
  mcpLimits?: { window: number; provider: string };
  /** The prompt's git status (the cached one: a child's prompt never waits for git). */
  gitStatus: () => string | undefined;
  /** A subagent's model: the parent's, or the one its definition names. */
  model: (name?: string) => Promise<ChildModel>;
  /** The session's folder (child transcripts go below it) and the values they redact. */
  sessionDir: string;
  secrets: readonly string[];
  /** A child's usage, added to the session's spend. */
  onUsage: (usage: Usage) => void;
  onProgress?: (callId: string, progress: SubagentProgress) => void;
  /** The session's tool hooks: the parent's and each subagent's calls run them, a `!command` does not. */
  hooks?: SessionHooks;
  /** An editor's files and terminals (`keen acp`): the parent's and each subagent's tools use them. */
  editor?: EditorAccess;
}

/**
 * The parent's registry, with the subagent runner behind its `task` tool, and the same layers
 * without the artifact store (`userCalls`: a REPL `!command` runs there, its output going into a
 * user message rather than a tool result).
 */
export async function sessionRegistry(parts: ToolParts): Promise<{ registry: ToolRegistry; userCalls: ToolRegistry }> {
  const { context, mode } = parts;
  const baseTools: Tool[] = [...defaultTools(parts.bashOptions), createRememberTool(() => context.current().memoryPaths), createSkillTool(() => context.current().skills)];
  const runner = createSubagentRunner({
    agents: () => context.current().agents,
    tools: () => baseTools,
    // A subagent's registry: plan mode when the session is in it, or when its tools are read-only.
    registry: (tools) => {
      const readOnly = readOnlyToolSet(tools);
      return buildRegistry({ tools, checkpoints: parts.checkpoints, planning: () => readOnly || mode.get() === 'plan', hooks: parts.hooks, editor: parts.editor });
    },
    systemPrompt: (def, tools) => {
      const now = context.current();
      return buildSystemPrompt({
        cwd: parts.cwd,
        mode: mode.get(),
        context: { ...now, skills: tools.some((t) => t.name === 'skill') ? now.skills : [] },
        base: def?.prompt,
        gitStatus: parts.gitStatus,
      });
    },
    model: parts.model,
    sessionDir: parts.sessionDir,
    secrets: parts.secrets,
    onUsage: parts.onUsage,
    onProgress: parts.onProgress,
  });
  // The parent's tools: built-ins, recall, the task tool and (when configured) the MCP servers'
  // current tools; every output is stored once as an artifact (the handle a prune leaves).
  const tools = [...baseTools, parts.artifacts.recall, createTaskTool(runner)];
  const mcp = parts.mcp ? await mcpBase(parts.mcp, parts.mcpLimits, parts.sessionDir) : undefined;
  const layers = { tools, mcp, checkpoints: parts.checkpoints, planning: () => mode.get() === 'plan', editor: parts.editor };
  return { registry: buildRegistry({ ...layers, artifacts: parts.artifacts.sink, hooks: parts.hooks }), userCalls: buildRegistry(layers) };
}

/** The MCP-aware base, deferring MCP tools over the limits; one loaded set for both registries. */
async function mcpBase(manager: McpManager, limits: ToolParts['mcpLimits'], sessionDir: string): Promise<NonNullable<RegistryParts['mcp']>> {
  const [{ createMcpAwareRegistry }, { LoadedTools }] = await Promise.all([import('../tools/mcp/registry.js'), import('../tools/mcp/loaded-tools.js')]);
  const deferral = limits ? { ...limits, loaded: new LoadedTools(sessionDir) } : undefined;
  return { manager, base: (tools, m) => createMcpAwareRegistry(tools, m, deferral) };
}
