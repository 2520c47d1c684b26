import type { FunctionTool, ResponseInputItem } from 'openai/resources/responses/responses';
import type { NativeEncoder } from '../core/conversation.js';
import { partsOf, providerOf, type AssistantMessage, type Message } from '../core/message.js';
import type { ToolDefinition } from '../core/provider.js';

/** Native Responses state: `instructions` (the system prompt) plus the `input` item list. Read-only. */
export interface ResponsesState {
  readonly instructions: string;
  readonly input: readonly ResponseInputItem[];
}

/**
 * Lossless messages → Responses input items, one message at a time. The system prompt travels in
 * `instructions` (several system messages joined with a blank line), so a compaction replacement
 * rebuilds both the same way for Responses and Codex (which requires `instructions`).
 *
 * An assistant message becomes its items in part order: reasoning (only from this same wire API
 * and only with `encrypted_content`: with `store: false` a reasoning item without it cannot be
 * resolved), one message item per text part (with its `phase`), one function_call per call (with
 * its item id). `withoutIds` (Codex: nothing is stored server-side) leaves every item id out.
 */
export class ResponsesEncoder implements NativeEncoder<ResponsesState> {
  constructor(
    private readonly reasoningProvider: string,
    private readonly withoutIds: boolean,
    private instructions = '',
    private readonly input: ResponseInputItem[] = [],
  ) {}

  push(m: Message): void {
    switch (m.role) {
      case 'system':
        this.instructions = this.instructions ? `${this.instructions}\n\n${m.content}` : m.content;
        break;
      case 'user':
        this.input.push({ type: 'message', role: 'user', content: m.content });
        break;
      case 'tool':
        this.input.push({ type: 'function_call_output', call_id: m.tool_call_id, output: m.content });
        break;
      case 'assistant':
        this.input.push(...this.assistantItems(m));
        break;
    }
  }

  clone(): ResponsesEncoder {
    return new ResponsesEncoder(this.reasoningProvider, this.withoutIds, this.instructions, [...this.input]);
  }

  view(): ResponsesState {
    return { instructions: this.instructions, input: this.input };
  }

  private assistantItems(m: AssistantMessage): ResponseInputItem[] {
    const ours = providerOf(m) === this.reasoningProvider;
    const items: ResponseInputItem[] = [];
    const id = (meta: Record<string, unknown> | undefined) => (ours && !this.withoutIds && typeof meta?.id === 'string' ? { id: meta.id } : {});
    for (const p of partsOf(m)) {
      if (p.type === 'reasoning') {
        if (!ours || !p.encrypted_content) continue;
        const summary = Array.isArray(p.meta?.summary) ? (p.meta.summary as { type: 'summary_text'; text: string }[]) : p.text ? [{ type: 'summary_text' as const, text: p.text }] : [];
        const item = { type: 'reasoning', id: this.withoutIds ? undefined : typeof p.meta?.id === 'string' ? p.meta.id : '', summary, encrypted_content: p.encrypted_content };
        if (this.withoutIds) delete item.id;
        items.push(item as ResponseInputItem);
      } else if (p.type === 'text') {
        const item: ResponseInputItem = { type: 'message', role: 'assistant', content: p.text };
        if (ours && typeof p.meta?.phase === 'string') (item as { phase?: unknown }).phase = p.meta.phase;
        items.push(item);
      } else {
        items.push({ type: 'function_call', call_id: p.id, name: p.name, arguments: p.args, ...id(p.meta) });
      }
    }
    return items;
  }
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
