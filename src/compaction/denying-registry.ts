import type { ToolCall, ToolMessage } from '../core/message.js';
import { TOOL_CALLS_DISABLED_MESSAGE } from '../core/stream-options.js';
import type { ToolRegistry } from '../tools/types.js';

/**
 * Keeps the inner registry's definitions (so the request stays byte-identical for the prompt
 * cache) but refuses every call with {@link TOOL_CALLS_DISABLED_MESSAGE}: nothing runs and no
 * permission prompt appears. Any input is accepted, even arguments that do not parse.
 */
export function denyingRegistry(inner: ToolRegistry): ToolRegistry {
  return {
    definitions: () => inner.definitions(),
    execute: async (call: ToolCall): Promise<ToolMessage> => ({
      role: 'tool',
      tool_call_id: call.id,
      name: call.name,
      content: TOOL_CALLS_DISABLED_MESSAGE,
      is_error: true,
    }),
  };
}
