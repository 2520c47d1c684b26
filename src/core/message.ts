/**
 * The generic conversation model shared by every provider, the session store and AppState.
 *
 * Messages are persisted as JSON, so their keys are stable and lower-case (snake_case). Never
 * rename a key: old transcripts must keep loading.
 */

export type Role = 'system' | 'user' | 'assistant' | 'tool';

/** A tool call requested by the assistant. `args` is the raw JSON text the model produced. */
export interface ToolCall {
  id: string;
  name: string;
  args: string;
}

/**
 * Provider reasoning kept so a tool loop can be replayed faithfully (Anthropic thinking with its
 * signature, Responses reasoning items with encrypted content). `provider` names the wire API that
 * produced it; other providers ignore it.
 */
export interface ReasoningPart {
  provider: string;
  text: string;
  signature?: string;
  encrypted_content?: string;
  id?: string;
  redacted?: boolean;
}

export interface SystemMessage {
  role: 'system';
  content: string;
}

export interface UserMessage {
  role: 'user';
  content: string;
  /**
   * Set on a compacted summary: 1 = a summary of narrative history, 2 = a summary merged with a
   * previous one. Providers ignore it; compaction reads it to merge instead of re-summarising.
   */
  summary_level?: 1 | 2;
  /**
   * Images the user attached (`@shot.png`, a pasted path, `--image`, an ACP image block), each
   * checked and capped when read (src/tools/image-file.ts). Stored in the transcript like a tool
   * result's images; every wire sends them in the user turn, before the text.
   */
  images?: ToolResultImage[];
}

/**
 * Opaque, JSON-only metadata a wire API attaches to one part so it can rebuild its exact native
 * request (Responses item ids and summary parts, Gemini thought signatures on function calls,
 * Genkit part metadata). Only the wire API named by the message's `provider` reads it.
 */
export type PartMeta = Record<string, unknown>;

export interface TextPart {
  type: 'text';
  text: string;
  meta?: PartMeta;
}

/** Model reasoning: visible text (or a summary), its signature, encrypted content or redaction. */
export interface ReasoningContentPart {
  type: 'reasoning';
  text: string;
  signature?: string;
  encrypted_content?: string;
  redacted?: boolean;
  meta?: PartMeta;
}

export interface ToolCallPart {
  type: 'tool_call';
  id: string;
  name: string;
  args: string;
  meta?: PartMeta;
}

/** One piece of an assistant reply, in the order the model produced it. */
export type AssistantPart = TextPart | ReasoningContentPart | ToolCallPart;

/**
 * An assistant reply. `parts` (transcript format 2) is the lossless truth: ordered text,
 * reasoning and tool-call parts with the producing wire API's metadata. `content`, `tool_calls`
 * and `reasoning` are derived from it (see {@link assistantMessage}) for readers that only need
 * the generic view; a message without `parts` (format 1) is read as reasoning, text, tool calls.
 */
export interface AssistantMessage {
  role: 'assistant';
  content: string;
  tool_calls?: ToolCall[];
  reasoning?: ReasoningPart[];
  parts?: AssistantPart[];
  /** The wire API whose reasoning and metadata `parts` carry (e.g. `anthropic`, `codex`). */
  provider?: string;
}

/**
 * An image a tool returned (MCP image content) or the user attached, base64. Stored in the
 * transcript as is, so a resumed request carries the same bytes the live one did.
 */
export interface ToolResultImage {
  /** e.g. `image/png`. */
  media_type: string;
  /** Base64 (no `data:` prefix). */
  data: string;
}

export interface ToolMessage {
  role: 'tool';
  tool_call_id: string;
  name: string;
  /**
   * The result text. When `images` is set it still names each image with a placeholder line
   * (`[image: image/png, 1.1 KB]`): wires that cannot carry images in a tool result send only this.
   */
  content: string;
  is_error?: boolean;
  /** The session artifact holding this output in full (`artifact#N`), when one was stored. */
  artifact_ref?: number;
  /** Images of the result, sent by the wires that accept images in tool results (Anthropic, Bedrock, Responses). */
  images?: ToolResultImage[];
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/**
 * The assistant message for `parts` produced by wire API `provider`, with the generic fields
 * derived: `content` is the text parts joined, `tool_calls` and `reasoning` in part order.
 */
export function assistantMessage(parts: AssistantPart[], provider: string): AssistantMessage {
  let content = '';
  const calls: ToolCall[] = [];
  const reasoning: ReasoningPart[] = [];
  for (const p of parts) {
    if (p.type === 'text') content += p.text;
    else if (p.type === 'tool_call') calls.push({ id: p.id, name: p.name, args: p.args });
    else {
      const r: ReasoningPart = { provider, text: p.text };
      if (p.signature !== undefined) r.signature = p.signature;
      if (p.encrypted_content !== undefined) r.encrypted_content = p.encrypted_content;
      if (typeof p.meta?.id === 'string') r.id = p.meta.id;
      if (p.redacted) r.redacted = true;
      reasoning.push(r);
    }
  }
  const message: AssistantMessage = { role: 'assistant', content };
  if (calls.length > 0) message.tool_calls = calls;
  if (reasoning.length > 0) message.reasoning = reasoning;
  message.parts = parts;
  message.provider = provider;
  return message;
}

/**
 * The ordered parts of an assistant message. A format-1 message (no `parts`) reads as its
 * reasoning, then its text, then its tool calls: the order every adapter rebuilt it in.
 */
export function partsOf(m: AssistantMessage): AssistantPart[] {
  if (m.parts) return m.parts;
  const parts: AssistantPart[] = [];
  for (const r of m.reasoning ?? []) {
    const p: ReasoningContentPart = { type: 'reasoning', text: r.text };
    if (r.signature !== undefined) p.signature = r.signature;
    if (r.encrypted_content !== undefined) p.encrypted_content = r.encrypted_content;
    if (r.redacted) p.redacted = true;
    if (r.id !== undefined) p.meta = { id: r.id };
    parts.push(p);
  }
  if (m.content !== '') parts.push({ type: 'text', text: m.content });
  for (const c of m.tool_calls ?? []) parts.push({ type: 'tool_call', id: c.id, name: c.name, args: c.args });
  return parts;
}

/** The wire API a message's reasoning and metadata belong to (format 1: its reasoning's tag). */
export function providerOf(m: AssistantMessage): string | undefined {
  return m.provider ?? m.reasoning?.[0]?.provider;
}

export function systemMessage(content: string): SystemMessage {
  return { role: 'system', content };
}

export function userMessage(content: string, images?: readonly ToolResultImage[]): UserMessage {
  return images?.length ? { role: 'user', content, images: [...images] } : { role: 'user', content };
}

/** Deep copy, so a snapshot can never be mutated through a shared reference. */
export function cloneMessages(messages: readonly Message[]): Message[] {
  return structuredClone(messages as Message[]);
}

/** The conversation without system messages: what AppState and the session store hold. */
export function stripSystem(messages: readonly Message[]): Message[] {
  return messages.filter((m) => m.role !== 'system');
}

export function systemPart(messages: readonly Message[]): SystemMessage[] {
  return messages.filter((m): m is SystemMessage => m.role === 'system');
}
