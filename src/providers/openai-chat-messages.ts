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
 * under the field the server used, on every assistant message of a user turn in which the model
 * called tools — the final text-only answer of that turn included: DeepSeek's thinking mode refuses
 * such a history without each `reasoning_content`, and a server that sent the field understands
 * it. Reasoning of a turn without tool calls is left out (DeepSeek ignores it; it only costs input).
 */
function assistantChatMessage(m: AssistantMessage, toolTurn: boolean): ChatCompletionMessageParam {
  const parts = partsOf(m);
  const text = parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
  const calls = parts.filter((p) => p.type === 'tool_call');
  const message: ChatCompletionMessageParam & Partial<Record<ReasoningField, string>> =
    calls.length === 0
      ? { role: 'assistant', content: text }
      : {
          role: 'assistant',
          content: text || null,
          tool_calls: calls.map((c): ChatCompletionMessageFunctionToolCall => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })),
        };
  if ((toolTurn || calls.length > 0) && providerOf(m) === OPENAI_CHAT_REASONING) {
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

function chatMessage(m: Message, toolTurn: boolean): ChatCompletionMessageParam {
  switch (m.role) {
    case 'system':
      return { role: 'system', content: m.content };
    case 'user':
      return { role: 'user', content: m.content };
    case 'tool':
      return toolResultMessage(m);
    case 'assistant':
      return assistantChatMessage(m, toolTurn);
  }
}

/**
 * Lossless messages → chat messages, system messages included and in place: one per message.
 * Tracks whether the model called a tool since the last user message (see assistantChatMessage).
 */
export class ChatEncoder implements NativeEncoder<readonly ChatCompletionMessageParam[]> {
  constructor(
    private readonly messages: ChatCompletionMessageParam[] = [],
    private toolTurn = false,
  ) {}

  push(m: Message): void {
    if (m.role === 'user') this.toolTurn = false;
    if (m.role === 'assistant' && partsOf(m).some((p) => p.type === 'tool_call')) this.toolTurn = true;
    this.messages.push(chatMessage(m, this.toolTurn));
  }

  clone(): ChatEncoder {
    return new ChatEncoder([...this.messages], this.toolTurn);
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
