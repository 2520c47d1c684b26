import type {
  ChatCompletionContentPart,
  ChatCompletionContentPartImage,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions/completions';
import { cutImages, IMAGE_LIMITS, type ImageLimits } from '../tokens/image-budget.js';
import type { NativeEncoder } from '../core/conversation.js';
import { partsOf, providerOf, type AssistantMessage, type Message, type ToolMessage, type UserMessage } from '../core/message.js';
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

/** The image types Chat Completions `image_url` parts take; other images are not sent. */
const CHAT_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * A user message: its text as a string, or — with images — a content list of one `image_url`
 * part per image (a base64 data URL), then the text part.
 */
function userChatMessage(m: UserMessage): ChatCompletionMessageParam {
  const images = (m.images ?? []).filter((i) => CHAT_IMAGE_TYPES.has(i.media_type));
  if (images.length === 0) return { role: 'user', content: m.content };
  const content: ChatCompletionContentPart[] = images.map((i) => ({ type: 'image_url', image_url: { url: `data:${i.media_type};base64,${i.data}` } }));
  if (m.content !== '') content.push({ type: 'text', text: m.content });
  return { role: 'user', content };
}

/**
 * The messages of one request within the API's request-level image limits (image-budget.ts):
 * the newest images stay, each older one becomes a text part with the placeholder. Returns
 * `messages` itself when every image fits; otherwise copies only the messages that change.
 */
export function withinImageLimits(messages: readonly ChatCompletionMessageParam[], limits: ImageLimits = IMAGE_LIMITS['openai-chat']): readonly ChatCompletionMessageParam[] {
  const images: ChatCompletionContentPartImage[] = [];
  for (const m of messages) {
    if (m.role === 'user' && Array.isArray(m.content)) for (const p of m.content) if (p.type === 'image_url') images.push(p);
  }
  const cut = cutImages(limits, images, (p) => p.image_url.url.slice(p.image_url.url.indexOf(',') + 1));
  if (cut.omitted === 0) return messages;
  const dropped = new Set<object>(images.slice(0, cut.omitted));
  const placeholder: ChatCompletionContentPart = { type: 'text', text: cut.placeholder! };
  return messages.map((m) => {
    if (m.role !== 'user' || !Array.isArray(m.content) || !m.content.some((p) => dropped.has(p))) return m;
    return { ...m, content: m.content.map((p) => (dropped.has(p) ? placeholder : p)) };
  });
}

function chatMessage(m: Message, toolTurn: boolean): ChatCompletionMessageParam {
  switch (m.role) {
    case 'system':
      return { role: 'system', content: m.content };
    case 'user':
      return userChatMessage(m);
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
