import type {
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions/completions';
import type { Message, ToolMessage } from '../core/message.js';
import type { ToolDefinition } from '../core/provider.js';

/**
 * Generic messages → Chat Completions messages, system messages included and in place.
 * Reasoning is never sent back: several servers (DeepSeek among them) reject `reasoning_content`
 * in input messages.
 */
export function toChatMessages(messages: readonly Message[]): ChatCompletionMessageParam[] {
  return messages.map((m): ChatCompletionMessageParam => {
    switch (m.role) {
      case 'system':
        return { role: 'system', content: m.content };
      case 'user':
        return { role: 'user', content: m.content };
      case 'tool':
        return toolResultMessage(m);
      case 'assistant':
        return assistantMessage(m.content, (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.name, args: c.args })));
    }
  });
}

/** Reasoning as a server streamed it: the field it used and the text. */
export interface ServerReasoning {
  field: 'reasoning_content' | 'reasoning';
  text: string;
}

/**
 * An assistant turn for the native history. Reasoning the server streamed is echoed back, under
 * the field the server used, only on turns with tool calls: DeepSeek requires it within a tool
 * loop, and a server that sent the field understands it.
 */
export function assistantMessage(text: string, calls: { id: string; name: string; args: string }[], reasoning?: ServerReasoning): ChatCompletionMessageParam {
  if (calls.length === 0) return { role: 'assistant', content: text };
  const toolCalls: ChatCompletionMessageFunctionToolCall[] = calls.map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: c.args },
  }));
  const message: ChatCompletionMessageParam & Partial<Record<ServerReasoning['field'], string>> = {
    role: 'assistant',
    content: text || null,
    tool_calls: toolCalls,
  };
  if (reasoning?.text) message[reasoning.field] = reasoning.text;
  return message;
}

export function toolResultMessage(m: ToolMessage): ChatCompletionMessageParam {
  return { role: 'tool', tool_call_id: m.tool_call_id, content: m.content };
}

export function toChatTools(tools: readonly ToolDefinition[]): ChatCompletionTool[] {
  return tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.input_schema },
  }));
}
