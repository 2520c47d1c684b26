import type { FunctionTool, ResponseInputItem } from 'openai/resources/responses/responses';
import type { AssistantMessage, Message, ReasoningPart } from '../core/message.js';
import type { ToolDefinition } from '../core/provider.js';

/**
 * Generic messages ⇄ Responses input items.
 *
 * The system prompt travels in `instructions`, not as an input item: that keeps it out of `input`,
 * so a compaction replacement rebuilds both the same way for Responses and Codex (which requires
 * `instructions`). Multiple system messages are joined with a blank line.
 */
export function instructionsOf(messages: readonly Message[]): string {
  return messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n');
}

/**
 * The conversation (system messages skipped) as input items. Reasoning is replayed only when it
 * came from the same wire API (`reasoningProvider`) and carries `encrypted_content`: with
 * `store: false` a reasoning item without it cannot be resolved by the server.
 */
export function toResponsesInput(messages: readonly Message[], reasoningProvider: string): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        break;
      case 'user':
        items.push({ type: 'message', role: 'user', content: m.content });
        break;
      case 'tool':
        items.push({ type: 'function_call_output', call_id: m.tool_call_id, output: m.content });
        break;
      case 'assistant':
        items.push(...assistantItems(m, reasoningProvider));
        break;
    }
  }
  return items;
}

function assistantItems(m: AssistantMessage, reasoningProvider: string): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  for (const r of m.reasoning ?? []) {
    if (r.provider === reasoningProvider && r.encrypted_content) items.push(reasoningItem(r));
  }
  if (m.content) items.push({ type: 'message', role: 'assistant', content: m.content });
  for (const c of m.tool_calls ?? []) {
    items.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: c.args });
  }
  return items;
}

export function reasoningItem(r: ReasoningPart): ResponseInputItem {
  return {
    type: 'reasoning',
    id: r.id ?? '',
    summary: r.text ? [{ type: 'summary_text', text: r.text }] : [],
    encrypted_content: r.encrypted_content,
  };
}

export function toResponsesTools(tools: readonly ToolDefinition[]): FunctionTool[] {
  return tools.map((t) => ({
    type: 'function',
    name: t.name,
    description: t.description,
    parameters: t.input_schema,
    // Keen's schemas are not written for strict mode (optional properties, open objects).
    strict: false,
  }));
}

/** Function-call ids in `input` that have no `function_call_output` yet. */
export function unansweredCalls(input: readonly ResponseInputItem[]): string[] {
  const answered = new Set<string>();
  for (const item of input) if (item.type === 'function_call_output') answered.add(item.call_id);
  const open: string[] = [];
  for (const item of input) if (item.type === 'function_call' && !answered.has(item.call_id)) open.push(item.call_id);
  return open;
}

/**
 * Codex keeps nothing server-side, so item ids would point at nothing: send items without them.
 * Returns copies; the native history keeps its ids.
 */
export function withoutItemIds(input: readonly ResponseInputItem[]): ResponseInputItem[] {
  return input.map((item) => {
    if (!('id' in item) || item.id === undefined) return item;
    const { id: _id, ...rest } = item as ResponseInputItem & { id?: string };
    return rest as ResponseInputItem;
  });
}
