import type { MessageData, Part } from 'genkit';
import type { NativeEncoder } from '../core/conversation.js';
import { assistantMessage, partsOf, providerOf, type AssistantMessage, type AssistantPart, type Message, type PartMeta, type ToolCallPart } from '../core/message.js';

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
      if (m.content.trim()) this.pushParts('user', [{ text: m.content }]);
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
