import { CONTEXT_MANAGEMENT_BETA, keepAllThinking, keepsAllThinking, thinkingFields, thinkingMaxTokens } from './kit/thinking-form.js';
import type {
  ContentBlock,
  ImageFormat,
  ToolResultContentBlock,
  ConverseStreamRequest,
  Message as BedrockMessage,
  SystemContentBlock,
  Tool,
} from '@aws-sdk/client-bedrock-runtime';
import type { NativeEncoder } from '../core/conversation.js';
import { cutImages, IMAGE_LIMITS, type ImageLimits } from '../tokens/image-budget.js';
import { partsOf, providerOf, type AssistantMessage, type Message, type ToolMessage, type UserMessage } from '../core/message.js';
import type { ToolDefinition } from '../core/provider.js';

/** `provider` tag of the reasoning parts this wire API produces and replays. */
export const BEDROCK_REASONING = 'bedrock';

/** Where a model accepts `cachePoint` blocks; undefined when it has no prompt caching. */
export interface CacheFields {
  system: boolean;
  tools: boolean;
  messages: boolean;
}

/**
 * Prompt-caching support by model id (also inference-profile ids and ARNs). Anthropic Claude from
 * 3.5 Haiku / 3.5 Sonnet v2 on caches system, tools and messages; Amazon Nova caches system and
 * messages only. Older Claude models reject cache points, so they get none.
 */
export function cacheFieldsFor(modelId: string): CacheFields | undefined {
  const id = modelId.toLowerCase();
  if (/amazon\.nova-/.test(id)) return { system: true, tools: false, messages: true };
  if (!/anthropic\.claude/.test(id)) return undefined;
  if (/claude-(v2|instant)|claude-3-(haiku|sonnet|opus)-|claude-3-5-sonnet-20240620/.test(id)) return undefined;
  return { system: true, tools: true, messages: true };
}

/** Claude and Nova understand `toolResult.status`; other models reject the field. */
export function supportsToolStatus(modelId: string): boolean {
  return /anthropic\.claude|amazon\.nova-/i.test(modelId);
}

/** Where the newest-message cache point goes: after `blocks` blocks of `messages[index]`. */
export interface CacheAnchor {
  index: number;
  blocks: number;
}

/** Anchor at the very end of the history (undefined when it is empty). */
function anchorAtEnd(messages: readonly BedrockMessage[]): CacheAnchor | undefined {
  if (messages.length === 0) return undefined;
  const index = messages.length - 1;
  return { index, blocks: messages[index].content?.length ?? 0 };
}

export function toolSpecs(tools: readonly ToolDefinition[]): Tool[] {
  return tools.map((t) => ({
    toolSpec: { name: t.name, description: t.description, inputSchema: { json: t.input_schema as never } },
  }));
}

/** Converse refuses blank text; a tool result with no output still needs one non-blank block. */
const EMPTY_RESULT = '(no output)';

/** Converse image formats by media type; other images stay a placeholder line. */
const IMAGE_FORMATS: Record<string, ImageFormat> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' };

/**
 * A tool result as a `toolResult` block: the text (which names each image), then one `image`
 * block (format, raw bytes; the SDK sends them base64) per image of a format Converse accepts.
 */
export function toolResultBlock(result: ToolMessage, modelId: string): ContentBlock {
  const text = result.content.trim() ? result.content : EMPTY_RESULT;
  const images: ToolResultContentBlock[] = [];
  for (const i of result.images ?? []) {
    const format = IMAGE_FORMATS[i.media_type];
    if (format) images.push({ image: { format, source: { bytes: Buffer.from(i.data, 'base64') } } });
  }
  return {
    toolResult: {
      toolUseId: result.tool_call_id,
      content: [{ text }, ...images],
      ...(result.is_error && supportsToolStatus(modelId) ? { status: 'error' as const } : {}),
    },
  };
}

/**
 * A user message's blocks: one `image` block (format, raw bytes) per image of a format Converse
 * accepts, then its text; blank text is left out (Converse refuses it).
 */
export function userBlocks(m: UserMessage): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  for (const i of m.images ?? []) {
    const format = IMAGE_FORMATS[i.media_type];
    if (format) blocks.push({ image: { format, source: { bytes: Buffer.from(i.data, 'base64') } } });
  }
  if (m.content.trim()) blocks.push({ text: m.content });
  return blocks;
}

/** The image blocks of the user turns and tool results in `messages`, in request order (a plain loop: it runs per request). */
function resultImages(messages: readonly BedrockMessage[]): (ToolResultContentBlock | ContentBlock)[] {
  const images: (ToolResultContentBlock | ContentBlock)[] = [];
  for (const m of messages) {
    for (const b of m.content ?? []) {
      if (b.image?.source?.bytes !== undefined) images.push(b);
      for (const c of b.toolResult?.content ?? []) if (c.image?.source?.bytes !== undefined) images.push(c);
    }
  }
  return images;
}

/**
 * The messages of one request within Converse's request-level image limits (image-budget.ts):
 * the newest images stay (the cut moves in steps, for prompt caching), each older one becomes
 * a text block with the placeholder.
 * Returns `messages` itself when every image fits; otherwise copies only what changes, so the
 * native history is never edited. Top-level block counts stay the same (the cache anchor holds).
 */
export function withinImageLimits(messages: readonly BedrockMessage[], limits: ImageLimits = IMAGE_LIMITS.bedrock): readonly BedrockMessage[] {
  const images = resultImages(messages);
  const cut = cutImages(limits, images, (i) => i.image!.source!.bytes!);
  if (cut.omitted === 0) return messages;
  const dropped = new Set<object>(images.slice(0, cut.omitted));
  const placeholder = { text: cut.placeholder! };
  const hit = (b: ContentBlock) => dropped.has(b) || (b.toolResult?.content ?? []).some((c) => dropped.has(c));
  return messages.map((m) => {
    if (!(m.content ?? []).some(hit)) return m;
    const content = (m.content ?? []).map((b): ContentBlock => {
      if (dropped.has(b)) return placeholder;
      return b.toolResult && hit(b) ? { toolResult: { ...b.toolResult, content: b.toolResult.content!.map((c) => (dropped.has(c) ? placeholder : c)) } } : b;
    });
    return { ...m, content };
  });
}

function parseArgs(args: string): Record<string, unknown> {
  try {
    const value = JSON.parse(args || '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

/**
 * An assistant message's blocks in part order. Reasoning is replayed only when Bedrock produced it
 * and it can be verified (a signature, or redacted bytes); blank text is left out (Converse
 * refuses it).
 */
export function assistantBlocks(m: AssistantMessage): ContentBlock[] {
  const ours = providerOf(m) === BEDROCK_REASONING;
  const blocks: ContentBlock[] = [];
  for (const p of partsOf(m)) {
    if (p.type === 'text') {
      if (p.text.trim()) blocks.push({ text: p.text });
    } else if (p.type === 'tool_call') {
      blocks.push({ toolUse: { toolUseId: p.id, name: p.name, input: parseArgs(p.args) as never } });
    } else if (ours && p.redacted && p.encrypted_content) {
      blocks.push({ reasoningContent: { redactedContent: Buffer.from(p.encrypted_content, 'base64') } });
    } else if (ours && p.signature) {
      blocks.push({ reasoningContent: { reasoningText: { text: p.text, signature: p.signature } } });
    }
  }
  return blocks;
}

/** Native Converse history: system blocks, alternating messages, and the newest cache anchor. Read-only. */
export interface ConverseHistory {
  readonly system: readonly SystemContentBlock[];
  readonly messages: readonly BedrockMessage[];
  readonly anchor: CacheAnchor | undefined;
}

/**
 * Lossless messages → Converse history, one message at a time. Consecutive same-role content
 * merges into one turn (Converse alternates roles); empty turns are dropped; a tool use whose
 * result never came gets an error result before the next turn, so the history is accepted.
 * Merging replaces the last turn with a new object, so a clone is a shallow copy.
 */
export class ConverseEncoder implements NativeEncoder<ConverseHistory> {
  constructor(
    private readonly modelId: string,
    private system: SystemContentBlock[] = [],
    private readonly messages: BedrockMessage[] = [],
    private unanswered: { id: string; name: string }[] = [],
    private cacheAnchor: CacheAnchor | undefined = undefined,
  ) {}

  push(m: Message): void {
    if (m.role === 'system') {
      if (m.content.trim()) this.system = [...this.system, { text: m.content }];
      return;
    }
    if (m.role === 'tool') {
      this.unanswered = this.unanswered.filter((c) => c.id !== m.tool_call_id);
      this.turn('user', [toolResultBlock(m, this.modelId)]);
      return;
    }
    this.closeUnanswered();
    if (m.role === 'user') {
      this.turn('user', userBlocks(m));
    } else {
      this.turn('assistant', assistantBlocks(m));
      this.unanswered = (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.name }));
    }
  }

  anchor(): void {
    this.cacheAnchor = anchorAtEnd(this.messages);
  }

  clone(): ConverseEncoder {
    return new ConverseEncoder(this.modelId, this.system, [...this.messages], this.unanswered, this.cacheAnchor);
  }

  view(): ConverseHistory {
    return { system: this.system, messages: this.messages, anchor: this.cacheAnchor ?? anchorAtEnd(this.messages) };
  }

  private closeUnanswered(): void {
    const blocks = this.unanswered.map((c) =>
      toolResultBlock({ role: 'tool', tool_call_id: c.id, name: c.name, content: 'The tool call was interrupted before it returned a result.', is_error: true }, this.modelId),
    );
    this.unanswered = [];
    this.turn('user', blocks);
  }

  /** Append `blocks` as a `role` turn, merging into the last turn when it has the same role. */
  private turn(role: 'user' | 'assistant', blocks: ContentBlock[]): void {
    if (blocks.length === 0) return;
    const at = this.messages.length - 1;
    const last = this.messages[at];
    if (last?.role === role) this.messages[at] = { role, content: [...(last.content ?? []), ...blocks] };
    else this.messages.push({ role, content: blocks });
  }
}

export interface WireState {
  modelId: string;
  history: ConverseHistory;
  tools: readonly Tool[];
  /** This request's output limit (the session's, capped by the room the loop leaves). */
  maxTokens: number;
  /** The session's configured output limit, which decides the thinking form; absent: `maxTokens`. */
  sessionMaxTokens?: number;
  thinkingBudget?: number;
  /** false: no cache points (a one-off request). */
  promptCache?: boolean;
}

const CACHE_POINT = { cachePoint: { type: 'default' as const } };

/**
 * The ConverseStream input for the current native state. Cache points go after the system blocks,
 * after the tools and at the anchor in the newest turns, for models that support them; native
 * history itself never holds cache points. Images beyond the request limits are replaced by a
 * placeholder in this input only ({@link withinImageLimits}). `promptCache: false` places none.
 */
export function converseInput(s: WireState): ConverseStreamRequest {
  const cache = s.promptCache === false ? undefined : cacheFieldsFor(s.modelId);
  const system: SystemContentBlock[] = [...s.history.system];
  if (cache?.system && system.length > 0) system.push(CACHE_POINT);
  const tools: Tool[] = [...s.tools];
  if (cache?.tools && tools.length > 0) tools.push(CACHE_POINT);
  let messages = [...withinImageLimits(s.history.messages)];
  const a = s.history.anchor;
  if (cache?.messages && a && a.index < messages.length) {
    messages = messages.map((m, i) => {
      if (i !== a.index) return m;
      const content = [...(m.content ?? [])];
      content.splice(a.blocks, 0, CACHE_POINT);
      return { ...m, content };
    });
  }
  const wanted = s.thinkingBudget && s.thinkingBudget > 0 && /anthropic\.claude/i.test(s.modelId) ? s.thinkingBudget : 0;
  // The session's thinking (kit/thinking-form.ts), the same in every request so the cache holds:
  // adaptive from Claude 4.6 on, else the whole budget when the configured limit holds it.
  const thinking = thinkingFields(s.modelId, wanted, s.sessionMaxTokens ?? s.maxTokens);
  const input: ConverseStreamRequest = {
    modelId: s.modelId,
    messages,
    inferenceConfig: { maxTokens: thinkingMaxTokens(thinking, s.maxTokens) },
  };
  if (system.length > 0) input.system = system;
  if (tools.length > 0) input.toolConfig = { tools };
  // A model that drops earlier turns' thinking by default is asked to keep it (the beta goes in the body on Bedrock).
  if (keepsAllThinking(s.modelId, thinking)) {
    input.additionalModelRequestFields = { ...thinking, anthropic_beta: [CONTEXT_MANAGEMENT_BETA], context_management: keepAllThinking() };
  } else if ('thinking' in thinking) input.additionalModelRequestFields = thinking;
  return input;
}
