/**
 * The one builder of a session's tool registries (the parent's and each subagent's). The layers,
 * from the model's side inward:
 *
 *   5. artifacts (parent only, src/compaction/artifact-registry.ts): every result the model sees,
 *      refusals included, is stored once as an artifact and carries its `artifact_ref` (the handle
 *      a later prune leaves). Outermost, so it stores exactly what goes back to the model.
 *   4. hooks (src/hooks/hooks-registry.ts): the PreToolUse hooks see every call the model made,
 *      before plan mode, checkpoints and the permission gate — as in Claude Code, where they run
 *      before the permission prompt — so a blocked call keeps no checkpoint and asks nobody; their
 *      allow / ask travels with the call to the gate, which weighs it against the rules, and an
 *      `updatedInput` replaces the call for every layer below (each judges what will run). The
 *      PostToolUse hooks see each successful result before it is stored.
 *   3. plan mode (src/tools/plan-mode-registry.ts): while planning, a mutating call is refused
 *      here, before anything below runs — no checkpoint is kept, no permission is asked, `--yolo`
 *      and allow rules do not lift it; the calls that go on carry `planMode` (read-only bash).
 *   2. checkpoints (src/undo/checkpointing-registry.ts): a file's state is kept before a write
 *      goes to the gate and the tool, and bash runs between two workspace scans, so undo can
 *      restore it. A write the gate then denies leaves an entry an undo finds unchanged.
 *   1. base (src/tools/registry.ts, or the MCP-aware one): parses the arguments, asks the
 *      permission gate, runs the tool — with an editor's files and terminals in its context when
 *      `keen acp` lends them (src/tools/file-access.ts).
 *
 * Outside all of them the loop refuses every call of a summary request (`disableToolCalls`:
 * src/compaction/denying-registry.ts), so a summary request changes nothing and stores nothing.
 */
import type { ToolCall } from '../core/message.js';
import { type ArtifactSink, artifactRegistry } from '../compaction/artifact-registry.js';
import { mutatingCalls, planModeRegistry } from '../tools/plan-mode-registry.js';
import type { McpManager } from '../tools/mcp/manager.js';
import type { createMcpAwareRegistry } from '../tools/mcp/registry.js';
import { createToolRegistry, type Tool } from '../tools/registry.js';
import { withEditorAccess } from '../tools/file-access.js';
import type { EditorAccess, ToolRegistry } from '../tools/types.js';
import { withCheckpoints } from '../undo/checkpointing-registry.js';
import { hooksRegistry } from '../hooks/hooks-registry.js';
import type { SessionHooks } from '../hooks/session-hooks.js';
import type { FileCheckpoints } from '../undo/file-checkpoints.js';

export interface RegistryParts {
  /** The built-in tools the model is offered. */
  tools: Tool[];
  /**
   * MCP servers whose current tools join `tools`, with the MCP-aware base (loaded lazily by the
   * caller, so a session without MCP never loads its code). Their mutating tools (no
   * `readOnlyHint`) are refused in plan mode like the built-in ones.
   */
  mcp?: { manager: McpManager; base: typeof createMcpAwareRegistry };
  /** The session's file checkpoints (undo). */
  checkpoints: FileCheckpoints;
  /** Whether plan mode refuses mutating calls now (read per call: /mode and Shift+Tab change it). */
  planning: () => boolean;
  /** Where every result is stored as an artifact; absent for a subagent. */
  artifacts?: ArtifactSink;
  /** The session's PreToolUse / PostToolUse hooks; absent for a REPL `!command` (the user's own). */
  hooks?: SessionHooks;
  /** An editor's files and terminals (`keen acp`), in every call's context (src/tools/file-access.ts). */
  editor?: EditorAccess;
}

/** The layers of {@link RegistryParts} in the order the file header gives. */
export function buildRegistry(parts: RegistryParts): ToolRegistry {
  const { tools, mcp } = parts;
  const own = mcp ? mcp.base(tools, mcp.manager) : createToolRegistry(tools);
  const base = parts.editor ? withEditorAccess(own, parts.editor) : own;
  const builtins = mutatingCalls(tools);
  const mutates = mcp ? (call: ToolCall) => (call.name.startsWith('mcp__') ? mutatingCalls([...tools, ...mcp.manager.tools()])(call) : builtins(call)) : builtins;
  const planned = planModeRegistry(withCheckpoints(base, parts.checkpoints), parts.planning, mutates);
  const hooked = parts.hooks ? hooksRegistry(planned, parts.hooks) : planned;
  return parts.artifacts ? artifactRegistry(hooked, parts.artifacts) : hooked;
}
