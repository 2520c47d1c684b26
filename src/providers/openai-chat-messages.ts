import type { ChatCompletionMessageFunctionToolCall, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions/completions';
import type { NativeEncoder } from '../core/conversation.js';
import { partsOf, providerOf, type AssistantMessage, type Message, type ToolMessage } from '../core/message.js';
import type { ToolDefinition } from '../core/provider.js';

/** Reasoning parts produced by Chat Completions servers carry this provider tag. */
export const OPENAI_CHAT_REASONING = 'openai';

/** The field a server streamed its reasoning in; kept in the reasoning part's `meta.field`. */
export type ReasoningField = 'reasoning_content' | 'reasoning';

/**
 * An assistant message as a Chat Completions message. Reasoning this wire produced is echoed back,
 * under the field the server used, only on turns with tool calls: DeepSeek refuses a tool turn
 * without its `reasoning_content`, and a server that sent the field understands it.
 */
function assistantChatMessage(m: AssistantMessage): ChatCompletionMessageParam {
  const parts = partsOf(m);
  const text = parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
  const calls = parts.filter((p) => p.type === 'tool_call');
  if (calls.length === 0) return { role: 'assistant', content: text };
  const toolCalls: ChatCompletionMessageFunctionToolCall[] = calls.map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: c.args },
  }));
  const message: ChatCompletionMessageParam & Partial<Record<ReasoningField, string>> = {
    role: 'assistant',
    content: text || null,
    tool_calls: toolCalls,
  };
  if (providerOf(m) === OPENAI_CHAT_REASONING) {
    const reasoning = parts.filter((p) => p.type === 'reasoning');
    const thought = reasoning.map((p) => p.text).join('');
    const field = reasoning[0]?.meta?.field === 'reasoning' ? 'reasoning' : 'reasoning_content';
    if (thought) message[field] = thought;
  }
  return message;
}

function toolResultMessage(m: ToolMessage): ChatCompletionMessageParam {
  return { role: 'tool', tool_call_id: m.tool_call_id, content: m.content };
}

function chatMessage(m: Message): ChatCompletionMessageParam {
  switch (m.role) {
    case 'system':
      return { role: 'system', content: m.content };
    case 'user':
      return { role: 'user', content: m.content };
    case 'tool':
      return toolResultMessage(m);
    case 'assistant':
      return assistantChatMessage(m);
  }
}

/** Lossless messages → chat messages, system messages included and in place: one per message. */
export class ChatEncoder implements NativeEncoder<readonly ChatCompletionMessageParam[]> {
  constructor(private readonly messages: ChatCompletionMessageParam[] = []) {}

  push(m: Message): void {
    this.messages.push(chatMessage(m));
  }

  clone(): ChatEncoder {
    return new ChatEncoder([...this.messages]);
  }

  view(): readonly ChatCompletionMessageParam[] {
    return this.messages;
  }
}

export function toChatTools(tools: readonly ToolDefinition[]): ChatCompletionTool[] {
  return tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.input_schema },
  }));
}
