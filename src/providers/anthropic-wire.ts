/**
 * Anthropic Messages wire shapes and the deterministic encoding of lossless messages into them.
 *
 * Native history is stored WITHOUT `cache_control`; breakpoints are added to a copy when a request
 * is built (see {@link buildRequestBody}), so moving the message breakpoint never edits history.
 */
import { CONTEXT_MANAGEMENT_BETA, keepAllThinking, keepsAllThinking, thinkingFields, thinkingMaxTokens, type KeepAllThinking } from './kit/thinking-form.js';
import type {
  Base64ImageSource,
  CacheControlEphemeral,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  RedactedThinkingBlockParam,
  TextBlockParam,
  ThinkingBlockParam,
  Tool,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import type { NativeEncoder } from '../core/conversation.js';
import { cutImages, IMAGE_LIMITS, type ImageLimits } from '../tokens/image-budget.js';
import { partsOf, providerOf, type AssistantMessage, type Message, type ToolMessage, type UserMessage } from '../core/message.js';
import type { ToolDefinition } from '../core/provider.js';

/** The SDK's block types: what this encoder builds is exactly what `messages.create` takes. */
export type NativeBlock = TextBlockParam | ImageBlockParam | ThinkingBlockParam | RedactedThinkingBlockParam | ToolUseBlockParam | ToolResultBlockParam;

/** What a `tool_result` block may hold: text and base64 images. */
type ToolResultContent = Exclude<ToolResultBlockParam['content'], string | undefined>[number];

/** A base64 image inside a tool result. */
type ImageContent = ImageBlockParam & { source: Base64ImageSource };

type AnthropicImageType = Base64ImageSource['media_type'];

/** The image types the Messages API accepts; other images stay a placeholder line. */
export const ANTHROPIC_IMAGE_TYPES: ReadonlySet<string> = new Set<AnthropicImageType>(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

function isAnthropicImage<T extends { media_type: string }>(image: T): image is T & { media_type: AnthropicImageType } {
  return ANTHROPIC_IMAGE_TYPES.has(image.media_type);
}

/** A message whose content is always a block list (assignable to the SDK's `MessageParam`). */
export interface NativeMessage {
  role: 'user' | 'assistant';
  content: NativeBlock[];
}

type NativeSystemBlock = TextBlockParam;

export type NativeTool = Tool;

/** Everything one conversation sends besides the per-request switches. Read-only. */
export interface NativeHistory {
  readonly system: readonly NativeSystemBlock[];
  readonly messages: readonly NativeMessage[];
  readonly tools: readonly NativeTool[];
  /**
   * Where the cached prefix ends: the first `blocks` blocks of `messages[index]` (set at each
   * append but the fork's `appendUserText`). Absent: the newest message.
   */
  readonly anchor?: CacheAnchor;
}

/** The end of the prompt-cache prefix: after `blocks` blocks of `messages[index]`. */
export interface CacheAnchor {
  index: number;
  blocks: number;
}

export interface RequestSettings {
  model: string;
  /** This request's output limit (the session's, capped by the room the loop leaves). */
  maxOutputTokens: number;
  /** The session's configured output limit, which decides the thinking form; absent: `maxOutputTokens`. */
  sessionMaxOutputTokens?: number;
  thinkingBudget?: number;
  /** false: no breakpoints at all (a one-off request whose prefix nothing reads again). */
  promptCache?: boolean;
}

/** The provider name stored on reasoning parts this adapter produces and replays. */
export const ANTHROPIC_REASONING = 'anthropic';

const EPHEMERAL: CacheControlEphemeral = { type: 'ephemeral' };

export function toNativeTools(tools: readonly ToolDefinition[]): NativeTool[] {
  // A tool's input schema is a JSON Schema object (`type: "object"`), as the API requires.
  return tools.map((t) => ({ name: t.name, description: t.description, input_schema: structuredClone(t.input_schema) as Tool.InputSchema }));
}

/** A tool call's arguments as the `input` object the API demands; unparsable or non-object text becomes `{}`. */
function parseToolInput(args: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(args);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * A tool result as a `tool_result` block. With images of an accepted type the content is a block
 * list: the text (which names each image) then one base64 `image` block per image.
 */
export function toolResultBlock(result: ToolMessage): NativeBlock {
  const images = (result.images ?? []).filter(isAnthropicImage);
  let content: string | ToolResultContent[] | undefined = result.content !== '' ? result.content : undefined;
  if (images.length > 0) {
    content = [
      // The API rejects empty text blocks.
      ...(result.content !== '' ? [{ type: 'text' as const, text: result.content }] : []),
      ...images.map((i) => ({ type: 'image' as const, source: { type: 'base64' as const, media_type: i.media_type, data: i.data } })),
    ];
  }
  // An omitted `content` is the accepted way to say "no output".
  return {
    type: 'tool_result',
    tool_use_id: result.tool_call_id,
    ...(content !== undefined ? { content } : {}),
    ...(result.is_error ? { is_error: true } : {}),
  };
}

/**
 * An assistant message's blocks, in part order. Reasoning is replayed only when this API produced
 * it (a thinking block without its signature is refused, so one is never sent); empty text is
 * left out (the API rejects it).
 */
export function assistantBlocks(message: AssistantMessage): NativeBlock[] {
  const ours = providerOf(message) === ANTHROPIC_REASONING;
  const blocks: NativeBlock[] = [];
  for (const part of partsOf(message)) {
    if (part.type === 'text') {
      if (part.text !== '') blocks.push({ type: 'text', text: part.text });
    } else if (part.type === 'tool_call') {
      blocks.push({ type: 'tool_use', id: part.id, name: part.name, input: parseToolInput(part.args) });
    } else if (ours && part.redacted) {
      const data = part.encrypted_content ?? part.signature;
      if (data) blocks.push({ type: 'redacted_thinking', data });
    } else if (ours && part.signature) {
      blocks.push({ type: 'thinking', thinking: part.text, signature: part.signature });
    }
  }
  return blocks;
}

/**
 * Lossless messages → Anthropic history, one message at a time. Consecutive tool results share
 * one user turn; a user text after tool results stays a separate user message (the API merges
 * consecutive user turns), so a fork plus `appendUserText` is its parent plus one message.
 * Messages that would be empty are left out. Never mutates a message it has handed out, so a
 * clone is two shallow array copies.
 */
export class AnthropicEncoder implements NativeEncoder<NativeHistory> {
  constructor(
    private readonly tools: NativeTool[],
    private system: NativeSystemBlock[] = [],
    private messages: NativeMessage[] = [],
    private toolTurn = false,
    private cacheAnchor: CacheAnchor | undefined = undefined,
  ) {}

  push(m: Message): void {
    if (m.role === 'system') {
      if (m.content !== '') this.system = [...this.system, { type: 'text', text: m.content }];
      return;
    }
    if (m.role === 'tool') {
      const last = this.messages[this.messages.length - 1];
      if (this.toolTurn && last) this.messages[this.messages.length - 1] = { role: 'user', content: [...last.content, toolResultBlock(m)] };
      else this.messages.push({ role: 'user', content: [toolResultBlock(m)] });
      this.toolTurn = true;
      return;
    }
    this.toolTurn = false;
    if (m.role === 'user') {
      const message = userTurn(m);
      if (message.content.length > 0) this.messages.push(message);
      return;
    }
    const content = assistantBlocks(m);
    if (content.length > 0) this.messages.push({ role: 'assistant', content });
  }

  /** The cached prefix ends here: a fork's compaction instruction, appended after, stays outside it. */
  anchor(): void {
    const index = this.messages.length - 1;
    this.cacheAnchor = index < 0 ? undefined : { index, blocks: this.messages[index].content.length };
  }

  clone(): AnthropicEncoder {
    return new AnthropicEncoder(this.tools, this.system, [...this.messages], this.toolTurn, this.cacheAnchor);
  }

  view(): NativeHistory {
    return { system: this.system, messages: this.messages, tools: this.tools, ...(this.cacheAnchor ? { anchor: this.cacheAnchor } : {}) };
  }
}

/** The image blocks of the user turns and tool results in `messages`, in request order (a plain loop: it runs per request). */
function resultImages(messages: readonly NativeMessage[]): ImageContent[] {
  const images: ImageContent[] = [];
  for (const m of messages) {
    for (const b of m.content) {
      if (b.type === 'image' && b.source.type === 'base64') images.push(b as ImageContent);
      if (b.type !== 'tool_result' || !Array.isArray(b.content)) continue;
      // Only base64 images are built here; the check narrows `source`, not the block itself.
      for (const c of b.content) if (c.type === 'image' && c.source.type === 'base64') images.push(c as ImageContent);
    }
  }
  return images;
}

/**
 * The messages of one request within the API's request-level image limits (image-budget.ts):
 * the newest images stay (the cut moves in steps, for prompt caching), each older one becomes
 * a text block with the placeholder.
 * Returns `messages` itself when every image fits; otherwise copies only the messages and
 * blocks that change, so the native history is never edited.
 */
export function withinImageLimits(messages: readonly NativeMessage[], limits: ImageLimits = IMAGE_LIMITS.anthropic): readonly NativeMessage[] {
  const images = resultImages(messages);
  const cut = cutImages(limits, images, (i) => i.source.data);
  if (cut.omitted === 0) return messages;
  const dropped = new Set<object>(images.slice(0, cut.omitted));
  const placeholder = { type: 'text' as const, text: cut.placeholder! };
  const hit = (b: NativeBlock) => dropped.has(b) || (b.type === 'tool_result' && Array.isArray(b.content) && b.content.some((c) => dropped.has(c)));
  return messages.map((m) => {
    if (!m.content.some(hit)) return m;
    const content = m.content.map((b): NativeBlock => {
      if (dropped.has(b)) return placeholder;
      return b.type === 'tool_result' && Array.isArray(b.content) && hit(b) ? { ...b, content: b.content.map((c) => (dropped.has(c) ? placeholder : c)) } : b;
    });
    return { ...m, content };
  });
}

/**
 * A user message as a user turn: its images of an accepted type as base64 `image` blocks, then
 * its text (images first, as the vision guide advises). Empty text is left out.
 */
export function userTurn(m: UserMessage): NativeMessage {
  const content: NativeBlock[] = (m.images ?? [])
    .filter(isAnthropicImage)
    .map((i) => ({ type: 'image' as const, source: { type: 'base64' as const, media_type: i.media_type, data: i.data } }));
  if (m.content !== '') content.push({ type: 'text', text: m.content });
  return { role: 'user', content };
}

function markLast<T extends object>(items: readonly T[]): T[] {
  return items.map((item, i) => (i === items.length - 1 ? { ...item, cache_control: EPHEMERAL } : item));
}

const cacheable = (b: NativeBlock) => b.type === 'text' || b.type === 'tool_use' || b.type === 'tool_result';

/**
 * The message breakpoint: on the anchored prefix's last cacheable block (a fork's compaction
 * instruction comes after it, written once and never read), else the newest message's. Thinking
 * blocks cannot carry a breakpoint; the newest block before the point that can gets it.
 */
function markMessages(messages: readonly NativeMessage[], anchor: CacheAnchor | undefined): NativeMessage[] {
  let index = messages.length - 1;
  let at = -1;
  if (anchor && anchor.index <= index) {
    index = anchor.index;
    at = messages[index].content.slice(0, anchor.blocks).findLastIndex(cacheable);
  }
  if (at < 0) {
    index = messages.length - 1;
    at = messages[index]?.content.findLastIndex(cacheable) ?? -1;
  }
  if (at < 0) return [...messages];
  const target = messages[index];
  const content = target.content.map((b, i) => (i === at ? { ...b, cache_control: EPHEMERAL } : b));
  return messages.map((m, i) => (i === index ? { ...target, content } : m));
}

/**
 * The request body for the current history. Prompt-cache breakpoints (3 of the API's 4): the last
 * system block, the last tool definition, and the anchored (normally the newest) message's last
 * cacheable block. The message breakpoint moves forward each request; earlier prefixes are still
 * found by the API's lookback over block boundaries, so the nested compaction request (the parent
 * plus the instruction, with the breakpoint before the instruction) reads the parent's cache
 * entry. `promptCache: false` sends none (the budgeted document: nothing reads it again). Images beyond the API's request limits are replaced by a
 * placeholder in this body only ({@link withinImageLimits}). A model that drops earlier turns'
 * thinking by default gets the keep-all context edit beside its thinking ({@link keepsAllThinking});
 * the request then needs {@link requestHeaders}.
 */
export function buildRequestBody(history: NativeHistory, settings: RequestSettings): RequestBody {
  const cache = settings.promptCache !== false;
  const messages = withinImageLimits(history.messages);
  // The session's thinking, fixed by its configured output limit (not this request's cap).
  const thinking = thinkingFields(settings.model, settings.thinkingBudget ?? 0, settings.sessionMaxOutputTokens ?? settings.maxOutputTokens);
  return {
    model: settings.model,
    max_tokens: thinkingMaxTokens(thinking, settings.maxOutputTokens),
    ...(history.system.length > 0 ? { system: cache ? markLast(history.system) : [...history.system] } : {}),
    messages: cache ? markMessages(messages, history.anchor) : [...messages],
    ...(history.tools.length > 0 ? { tools: cache ? markLast(history.tools) : [...history.tools] } : {}),
    ...thinking,
    ...(keepsAllThinking(settings.model, thinking) ? { context_management: keepAllThinking() } : {}),
    stream: true,
  };
}

/** A Messages request as Keen sends it: the SDK's streaming params, plus the context-editing beta's field. */
export type RequestBody = MessageCreateParamsStreaming & { context_management?: KeepAllThinking };

/** The headers `body` needs: the context-management beta when it carries a context edit. */
export function requestHeaders(body: RequestBody): Record<string, string> | undefined {
  return body.context_management ? { 'anthropic-beta': CONTEXT_MANAGEMENT_BETA } : undefined;
}
