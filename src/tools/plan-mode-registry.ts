import type { ToolCall, ToolMessage } from '../llm/core/message.js';
import { planModeRefusal } from '../context/agent-mode.js';
import { isReadOnlyCommand } from './read-only-command.js';
import type { Tool } from './registry.js';
import type { ToolRegistry } from './types.js';

/**
 * Plan mode as a registry wrapper: while `planning()` is true, every call for which `mutates`
 * holds is refused with a tool error saying plan mode is on — before any permission gate is
 * asked, so `--yolo` and allow rules do not lift it. Definitions are unchanged (the model still
 * sees every tool; the prompt cache stays warm across /mode).
 */
export function planModeRegistry(inner: ToolRegistry, planning: () => boolean, mutates: (call: ToolCall) => boolean): ToolRegistry {
  return {
    definitions: () => inner.definitions(),
    concurrent: (name) => inner.concurrent?.(name) ?? false,
    async execute(call, ctx): Promise<ToolMessage> {
      if (planning() && mutates(call)) {
        return { role: 'tool', tool_call_id: call.id, name: call.name, content: planModeRefusal(call.name), is_error: true };
      }
      return inner.execute(call, ctx);
    },
  };
}

/**
 * The plan-mode predicate for `tools`: a mutating tool mutates, except a bash call whose command
 * is read-only. Unknown tools and unparsable arguments are left to the inner registry (it
 * reports them as errors and runs nothing).
 */
export function mutatingCalls(tools: readonly Tool[]): (call: ToolCall) => boolean {
  const byName = new Map(tools.map((t) => [t.name, t]));
  return (call) => {
    const tool = byName.get(call.name);
    if (!tool?.mutating) return false;
    if (tool.name !== 'bash') return true;
    try {
      const args = JSON.parse(call.args || '{}') as { command?: unknown };
      return !(typeof args.command === 'string' && isReadOnlyCommand(args.command));
    } catch {
      return true;
    }
  };
}
