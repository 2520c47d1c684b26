import type { MessageData, Part } from 'genkit';
import type { AssistantMessage, Message, ReasoningPart, ToolCall, ToolMessage } from '../core/message.js';

/** `provider` tag of the reasoning parts this adapter produces and replays. */
export const GENKIT_REASONING = 'genkit';

/**
 * Genkit's native history plus the tool-call refs the model actually sent: Gemini often omits
 * function-call ids, so Keen gives such calls its own ids and never sends them back as refs.
 */
export interface GenkitHistory {
  messages: MessageData[];
  /** Keen tool-call id → the model's ref (undefined when the model sent none). */
  refs: Record<string, string | undefined>;
}

/** Append parts as a `role` message, merging into the last message when it has that role. */
export function pushParts(messages: MessageData[], role: MessageData['role'], parts: Part[]): void {
  if (parts.length === 0) return;
  const last = messages[messages.length - 1];
  if (last?.role === role) last.content = [...last.content, ...parts];
  else messages.push({ role, content: parts });
}

function parseArgs(args: string): unknown {
  try {
    return JSON.parse(args || '{}');
  } catch {
    return {};
  }
}

export function toolResponseParts(results: readonly ToolMessage[], refs: GenkitHistory['refs']): Part[] {
  return results.map((r) => {
    const ref = r.tool_call_id in refs ? refs[r.tool_call_id] : r.tool_call_id;
    return { toolResponse: { name: r.name, ...(ref !== undefined ? { ref } : {}), output: r.content } };
  });
}

function assistantParts(m: AssistantMessage): Part[] {
  const parts: Part[] = [];
  for (const r of m.reasoning ?? []) {
    if (r.provider === GENKIT_REASONING && r.signature) parts.push({ reasoning: r.text, metadata: { thoughtSignature: r.signature } });
  }
  if (m.content.trim()) parts.push({ text: m.content });
  for (const c of m.tool_calls ?? []) parts.push({ toolRequest: { name: c.name, ref: c.id, input: parseArgs(c.args) } });
  return parts;
}

/**
 * Generic messages → Genkit messages. System messages become one leading `system` message (the
 * Google plugin accepts only one, first); tool results of a turn share one `tool` message.
 */
export function toGenkitHistory(messages: readonly Message[]): GenkitHistory {
  const out: MessageData[] = [];
  const system = messages.filter((m) => m.role === 'system' && m.content.trim()).map((m): Part => ({ text: m.content }));
  if (system.length > 0) out.push({ role: 'system', content: system });
  for (const m of messages) {
    if (m.role === 'system') continue;
    if (m.role === 'user') {
      if (m.content.trim()) pushParts(out, 'user', [{ text: m.content }]);
    } else if (m.role === 'assistant') {
      pushParts(out, 'model', assistantParts(m));
    } else {
      pushParts(out, 'tool', toolResponseParts([m], {}));
    }
  }
  return { messages: out, refs: {} };
}

/** A model reply ready for the history: empty text parts dropped (Gemini rejects them). */
export function cleanReply(parts: readonly Part[]): Part[] {
  return parts.filter((p) => !(typeof p.text === 'string' && p.text === '' && !p.toolRequest && !p.media));
}

let callSeq = 0;

/** The generic view of a model reply; assigns Keen ids to calls the model sent without a ref. */
export function assistantFromReply(parts: readonly Part[], refs: GenkitHistory['refs']): AssistantMessage {
  let text = '';
  const calls: ToolCall[] = [];
  const reasoning: ReasoningPart[] = [];
  for (const p of parts) {
    if (p.toolRequest) {
      const ref = p.toolRequest.ref;
      const id = ref ?? `gemini_call_${Date.now().toString(36)}_${++callSeq}`;
      refs[id] = ref;
      calls.push({ id, name: p.toolRequest.name, args: JSON.stringify(p.toolRequest.input ?? {}) });
    } else if (typeof p.reasoning === 'string') {
      const signature = p.metadata?.thoughtSignature;
      reasoning.push({ provider: GENKIT_REASONING, text: p.reasoning, ...(typeof signature === 'string' ? { signature } : {}) });
    } else if (typeof p.text === 'string') {
      text += p.text;
    }
  }
  const message: AssistantMessage = { role: 'assistant', content: text };
  if (calls.length > 0) message.tool_calls = calls;
  if (reasoning.length > 0) message.reasoning = reasoning;
  return message;
}
