import type { ToolCall, ToolMessage } from '../core/message.js';
import { type AgentMode, type ModeHolder, planModeRefusal } from '../project/agent-mode.js';
import type { PermissionMode } from './permissions/modes.js';
import type { Tool } from './registry.js';
import type { ToolRegistry } from './types.js';

/**
 * The one plan mode. The session is planning when the agent mode is `plan` (`--mode plan`,
 * `/mode plan`) or the permission mode is (`--permission-mode plan`, `/permissions mode plan`,
 * Shift+Tab, `permissions.defaultMode`); either way planModeRegistry refuses the mutating calls
 * with one text and the prompt says plan mode is on — the permission decision never refuses for
 * plan mode (in `plan` it decides as in `default`). The permission mode is kept otherwise:
 * `--yolo --mode plan` runs bash, read-only, without asking. `/mode build` leaves the
 * permission mode `plan` for `default`; the permission mode moving off `plan` ends plan mode.
 */
export function planModeHolder(policy: { mode: PermissionMode }, initial?: AgentMode): ModeHolder {
  let agent: AgentMode = initial ?? 'build';
  let seen = policy.mode;
  const sync = () => {
    if (policy.mode !== seen && seen === 'plan') agent = 'build';
    seen = policy.mode;
  };
  return {
    get() {
      sync();
      return agent === 'plan' || policy.mode === 'plan' ? 'plan' : 'build';
    },
    set(mode) {
      sync();
      agent = mode;
      if (mode === 'build' && policy.mode === 'plan') policy.mode = 'default';
      seen = policy.mode;
    },
  };
}

/**
 * Plan mode as a registry wrapper: while `planning()` is true, every call for which `mutates`
 * holds is refused with a tool error saying plan mode is on — before any permission gate is
 * asked, so `--yolo` and allow rules do not lift it — and the calls that do go on carry
 * `planMode` in their context, so bash runs in a read-only sandbox without network (or, where
 * there is none, is refused: src/tools/sandbox/index.ts). Definitions are unchanged (the model
 * still sees every tool; the prompt cache stays warm across /mode).
 */
export function planModeRegistry(inner: ToolRegistry, planning: () => boolean, mutates: (call: ToolCall) => boolean): ToolRegistry {
  return {
    definitions: () => inner.definitions(),
    concurrent: (name) => inner.concurrent?.(name) ?? false,
    async execute(call, ctx): Promise<ToolMessage> {
      if (!planning()) return inner.execute(call, ctx);
      if (mutates(call)) {
        return { role: 'tool', tool_call_id: call.id, name: call.name, content: planModeRefusal(call.name), is_error: true };
      }
      return inner.execute(call, { ...ctx, planMode: true });
    },
  };
}

/**
 * The plan-mode predicate for `tools`: a mutating tool mutates, except bash, whose commands plan
 * mode confines to a read-only sandbox instead of guessing from the command text. Unknown tools
 * are left to the inner registry (it reports them as errors and runs nothing).
 */
export function mutatingCalls(tools: readonly Tool[]): (call: ToolCall) => boolean {
  const byName = new Map(tools.map((t) => [t.name, t]));
  return (call) => {
    const tool = byName.get(call.name);
    if (!tool?.mutating) return false;
    return tool.name !== 'bash';
  };
}

/** Tools that change files: a subagent whose tool list has none of them is a read-only one. */
const FILE_WRITERS = ['write_file', 'edit_file'];

/**
 * Whether a subagent's tool set is read-only (no file-writing tool): its registry then runs in
 * plan mode whatever the parent's mode, so its bash cannot write either.
 */
export function readOnlyToolSet(tools: readonly Tool[]): boolean {
  return !tools.some((t) => FILE_WRITERS.includes(t.name));
}
