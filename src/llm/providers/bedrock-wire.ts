import type {
  ContentBlock,
  ConverseStreamRequest,
  Message as BedrockMessage,
  SystemContentBlock,
  Tool,
} from '@aws-sdk/client-bedrock-runtime';
import type { AssistantMessage, Message, ReasoningPart, ToolMessage } from '../core/message.js';
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
export function anchorAtEnd(messages: readonly BedrockMessage[]): CacheAnchor | undefined {
  if (messages.length === 0) return undefined;
  const index = messages.length - 1;
  return { index, blocks: messages[index].content?.length ?? 0 };
}

export function systemBlocks(messages: readonly Message[]): SystemContentBlock[] {
  return messages.filter((m) => m.role === 'system' && m.content.trim()).map((m) => ({ text: m.content }));
}

export function toolSpecs(tools: readonly ToolDefinition[]): Tool[] {
  return tools.map((t) => ({
    toolSpec: { name: t.name, description: t.description, inputSchema: { json: t.input_schema as never } },
  }));
}

/** Converse refuses blank text; a tool result with no output still needs one non-blank block. */
const EMPTY_RESULT = '(no output)';

export function toolResultBlock(result: ToolMessage, modelId: string): ContentBlock {
  const text = result.content.trim() ? result.content : EMPTY_RESULT;
  return {
    toolResult: {
      toolUseId: result.tool_call_id,
      content: [{ text }],
      ...(result.is_error && supportsToolStatus(modelId) ? { status: 'error' as const } : {}),
    },
  };
}

function parseArgs(args: string): Record<string, unknown> {
  try {
    const value = JSON.parse(args || '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

function reasoningBlocks(parts: readonly ReasoningPart[] | undefined): ContentBlock[] {
  const out: ContentBlock[] = [];
  for (const p of parts ?? []) {
    if (p.provider !== BEDROCK_REASONING) continue;
    if (p.redacted && p.encrypted_content) {
      out.push({ reasoningContent: { redactedContent: Buffer.from(p.encrypted_content, 'base64') } });
    } else if (p.signature) {
      out.push({ reasoningContent: { reasoningText: { text: p.text, signature: p.signature } } });
    }
  }
  return out;
}

export function assistantBlocks(m: AssistantMessage): ContentBlock[] {
  const blocks = reasoningBlocks(m.reasoning);
  if (m.content.trim()) blocks.push({ text: m.content });
  for (const call of m.tool_calls ?? []) {
    blocks.push({ toolUse: { toolUseId: call.id, name: call.name, input: parseArgs(call.args) as never } });
  }
  return blocks;
}

/** Append `blocks` as a `role` turn, merging into the last turn when it has the same role. */
export function pushTurn(messages: BedrockMessage[], role: 'user' | 'assistant', blocks: ContentBlock[]): void {
  if (blocks.length === 0) return;
  const last = messages[messages.length - 1];
  if (last?.role === role) last.content = [...(last.content ?? []), ...blocks];
  else messages.push({ role, content: blocks });
}

/**
 * Generic conversation (system messages ignored) → Converse messages. Consecutive same-role
 * content merges into one turn; empty assistant turns are dropped; a tool use whose result never
 * arrived (an interrupted turn) gets an error result so the service accepts the history.
 */
export function toBedrockMessages(messages: readonly Message[], modelId: string): BedrockMessage[] {
  const out: BedrockMessage[] = [];
  let unanswered: { id: string; name: string }[] = [];
  const closeUnanswered = () => {
    const blocks = unanswered.map((c) =>
      toolResultBlock({ role: 'tool', tool_call_id: c.id, name: c.name, content: 'The tool call was interrupted before it returned a result.', is_error: true }, modelId),
    );
    unanswered = [];
    pushTurn(out, 'user', blocks);
  };
  for (const m of messages) {
    if (m.role === 'system') continue;
    if (m.role === 'tool') {
      unanswered = unanswered.filter((c) => c.id !== m.tool_call_id);
      pushTurn(out, 'user', [toolResultBlock(m, modelId)]);
      continue;
    }
    closeUnanswered();
    if (m.role === 'user') {
      if (m.content.trim()) pushTurn(out, 'user', [{ text: m.content }]);
    } else {
      pushTurn(out, 'assistant', assistantBlocks(m));
      unanswered = (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.name }));
    }
  }
  closeUnanswered();
  return out;
}

export interface WireState {
  modelId: string;
  system: SystemContentBlock[];
  messages: BedrockMessage[];
  tools: Tool[];
  anchor: CacheAnchor | undefined;
  maxTokens: number;
  thinkingBudget?: number;
}

const CACHE_POINT = { cachePoint: { type: 'default' as const } };

/**
 * The ConverseStream input for the current native state. Cache points go after the system blocks,
 * after the tools and at the anchor in the newest turns, for models that support them; native
 * history itself never holds cache points.
 */
export function converseInput(s: WireState): ConverseStreamRequest {
  const cache = cacheFieldsFor(s.modelId);
  const system: SystemContentBlock[] = [...s.system];
  if (cache?.system && system.length > 0) system.push(CACHE_POINT);
  const tools: Tool[] = [...s.tools];
  if (cache?.tools && tools.length > 0) tools.push(CACHE_POINT);
  let messages = s.messages;
  const a = s.anchor;
  if (cache?.messages && a && a.index < messages.length) {
    messages = messages.map((m, i) => {
      if (i !== a.index) return m;
      const content = [...(m.content ?? [])];
      content.splice(a.blocks, 0, CACHE_POINT);
      return { ...m, content };
    });
  }
  const wanted = s.thinkingBudget && s.thinkingBudget > 0 && /anthropic\.claude/i.test(s.modelId) ? s.thinkingBudget : 0;
  // Room for the answer beyond the thinking budget, within maxTokens (which the loop may have capped).
  const thinking = wanted > 0 && s.maxTokens > 2048 ? Math.min(wanted, s.maxTokens - 1024) : 0;
  const input: ConverseStreamRequest = {
    modelId: s.modelId,
    messages,
    inferenceConfig: { maxTokens: s.maxTokens },
  };
  if (system.length > 0) input.system = system;
  if (tools.length > 0) input.toolConfig = { tools };
  if (thinking) input.additionalModelRequestFields = { thinking: { type: 'enabled', budget_tokens: thinking } } as never;
  return input;
}
