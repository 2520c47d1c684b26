import type { MessageData, Part } from 'genkit';
import type { NativeEncoder } from '../core/conversation.js';
import { cutImages, IMAGE_LIMITS, type ImageLimits } from '../tokens/image-budget.js';
import {
  assistantMessage,
  partsOf,
  providerOf,
  type AssistantMessage,
  type AssistantPart,
  type Message,
  type PartMeta,
  type ToolCallPart,
  type UserMessage,
} from '../core/message.js';

/** `provider` tag of the reasoning parts this adapter produces and replays. */
export const GENKIT_REASONING = 'genkit';

function parseArgs(args: string): unknown {
  try {
    return JSON.parse(args || '{}');
  } catch {
    return {};
  }
}

/** Genkit's part metadata (thought signatures, Gemini part metadata), kept verbatim in `meta.metadata`. */
function metadataOf(meta: PartMeta | undefined): Record<string, unknown> | undefined {
  const m = meta?.metadata;
  return m && typeof m === 'object' && !Array.isArray(m) ? (m as Record<string, unknown>) : undefined;
}

/**
 * The model's own ref for a call: `meta.ref` as decoded (null: the model sent none, so Keen's id
 * is never sent back). A call without that meta (an older transcript, another provider) is sent
 * with its id as the ref.
 */
function modelRef(part: ToolCallPart): string | undefined {
  if (part.meta && 'ref' in part.meta) return typeof part.meta.ref === 'string' ? part.meta.ref : undefined;
  return part.id;
}

/** Genkit parts of an assistant message, in part order. */
function assistantParts(m: AssistantMessage): Part[] {
  const ours = providerOf(m) === GENKIT_REASONING;
  const parts: Part[] = [];
  for (const p of partsOf(m)) {
    const metadata = ours ? metadataOf(p.meta) : undefined;
    const withMeta = <T extends Part>(part: T): T => (metadata ? { ...part, metadata } : part);
    if (p.type === 'text') {
      if (p.text !== '' || metadata) parts.push(withMeta({ text: p.text }));
    } else if (p.type === 'tool_call') {
      const ref = modelRef(p);
      parts.push(withMeta({ toolRequest: { name: p.name, ...(ref !== undefined ? { ref } : {}), input: parseArgs(p.args) } }));
    } else if (ours && p.meta !== undefined) {
      parts.push(withMeta({ reasoning: p.text }));
    } else if (ours && p.signature) {
      // Format 1 kept only the signature.
      parts.push({ reasoning: p.text, metadata: { thoughtSignature: p.signature } });
    }
  }
  return parts;
}

/** The image types Gemini takes inline; other images are not sent. */
const GEMINI_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * A user message's parts: one media part per image (a base64 data URL, which the Google plugin
 * sends as Gemini `inlineData`), then its text; blank text is left out.
 */
function userParts(m: UserMessage): Part[] {
  const parts: Part[] = (m.images ?? [])
    .filter((i) => GEMINI_IMAGE_TYPES.has(i.media_type))
    .map((i) => ({ media: { url: `data:${i.media_type};base64,${i.data}`, contentType: i.media_type } }));
  if (m.content.trim()) parts.push({ text: m.content });
  return parts;
}

/**
 * The messages of one request within Gemini's request-level image limits (image-budget.ts): the
 * newest images stay, each older one becomes a text part with the placeholder. Returns
 * `messages` itself when every image fits; otherwise copies only the messages that change.
 */
export function withinImageLimits(messages: readonly MessageData[], limits: ImageLimits = IMAGE_LIMITS.gemini): readonly MessageData[] {
  const images: Part[] = [];
  for (const m of messages) for (const p of m.content) if (p.media?.url.startsWith('data:')) images.push(p);
  const cut = cutImages(limits, images, (p) => p.media!.url.slice(p.media!.url.indexOf(',') + 1));
  if (cut.omitted === 0) return messages;
  const dropped = new Set<Part>(images.slice(0, cut.omitted));
  const placeholder: Part = { text: cut.placeholder! };
  return messages.map((m) => (m.content.some((p) => dropped.has(p)) ? { ...m, content: m.content.map((p) => (dropped.has(p) ? placeholder : p)) } : m));
}

/**
 * Lossless messages → Genkit messages, one message at a time. System messages become one leading
 * `system` message (the Google plugin accepts only one, first); same-role content merges (tool
 * results of a turn share one `tool` message). Merging replaces the last message with a new
 * object, so a clone is a shallow copy.
 */
export class GenkitEncoder implements NativeEncoder<readonly MessageData[]> {
  constructor(
    private readonly messages: MessageData[] = [],
    /** Keen tool-call id → the ref the model sent (undefined: none). */
    private readonly refs: Map<string, string | undefined> = new Map(),
  ) {}

  push(m: Message): void {
    if (m.role === 'system') {
      if (!m.content.trim()) return;
      const first = this.messages[0];
      if (first?.role === 'system') this.messages[0] = { role: 'system', content: [...first.content, { text: m.content }] };
      else this.messages.unshift({ role: 'system', content: [{ text: m.content }] });
    } else if (m.role === 'user') {
      this.pushParts('user', userParts(m));
    } else if (m.role === 'assistant') {
      for (const p of partsOf(m)) if (p.type === 'tool_call') this.refs.set(p.id, modelRef(p));
      this.pushParts('model', assistantParts(m));
    } else {
      const ref = this.refs.has(m.tool_call_id) ? this.refs.get(m.tool_call_id) : m.tool_call_id;
      this.pushParts('tool', [{ toolResponse: { name: m.name, ...(ref !== undefined ? { ref } : {}), output: m.content } }]);
    }
  }

  clone(): GenkitEncoder {
    return new GenkitEncoder([...this.messages], new Map(this.refs));
  }

  view(): readonly MessageData[] {
    return this.messages;
  }

  private pushParts(role: MessageData['role'], parts: Part[]): void {
    if (parts.length === 0) return;
    const at = this.messages.length - 1;
    const last = this.messages[at];
    if (last?.role === role) this.messages[at] = { role, content: [...last.content, ...parts] };
    else this.messages.push({ role, content: parts });
  }
}

let callSeq = 0;

/**
 * The lossless message of a model reply (empty text parts dropped unless they carry metadata). Genkit
 * part metadata (the thought signature Gemini puts on a function-call part) is kept in
 * `meta.metadata`; a call the model sent without a ref gets a Keen id and `meta.ref: null`.
 */
export function assistantFromReply(reply: readonly Part[]): AssistantMessage {
  const parts: AssistantPart[] = [];
  for (const p of reply) {
    const meta: PartMeta | undefined = p.metadata && Object.keys(p.metadata).length > 0 ? { metadata: structuredClone(p.metadata) } : undefined;
    if (p.toolRequest) {
      const ref = p.toolRequest.ref;
      const id = ref ?? `gemini_call_${Date.now().toString(36)}_${++callSeq}`;
      parts.push({ type: 'tool_call', id, name: p.toolRequest.name, args: JSON.stringify(p.toolRequest.input ?? {}), meta: { ref: ref ?? null, ...meta } });
    } else if (typeof p.reasoning === 'string') {
      const signature = p.metadata?.thoughtSignature;
      parts.push({ type: 'reasoning', text: p.reasoning, ...(typeof signature === 'string' ? { signature } : {}), meta: meta ?? {} });
    } else if (typeof p.text === 'string' && (p.text !== '' || meta)) {
      // An empty text part is kept only for the signature it carries.
      parts.push({ type: 'text', text: p.text, ...(meta ? { meta } : {}) });
    }
  }
  return assistantMessage(parts, GENKIT_REASONING);
}
