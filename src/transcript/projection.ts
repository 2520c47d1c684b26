import { cloneMessages, stripSystem, type Message } from '../core/message.js';
import type { Usage } from '../core/usage.js';
import { applyPrunePlan } from './apply-prune.js';
import type { SessionRecord, ToolActivity } from './records.js';

/**
 * Pure views of a transcript's records: the model history to resume from, and the visible
 * transcript a UI replays. Neither touches the disk.
 */

/**
 * The system-free model history the records describe: `user_message` appends its message,
 * `assistant_turn` appends its messages, `compaction_applied` replaces everything before it with
 * (a clone of) its messages, an `undo` with `conversation_to_seq` goes back to the history as it
 * was before that user message (before a compaction too, when the records reach back to it), `prune_applied` swaps the named tool outputs for their handles. A checkpoint is a normal `assistant_turn`; the compaction written in
 * the same batch replaces it. The result is a fresh deep copy: mutating it never touches `records`.
 */
export function buildConversation(records: readonly SessionRecord[]): Message[] {
  // Everything before the last compaction is replaced anyway: start there instead of copying it.
  let start = 0;
  for (let i = records.length - 1; i >= 0; i--) {
    if (records[i].kind === 'compaction_applied') {
      start = i;
      break;
    }
  }
  let messages: Message[] = [];
  // History length before each user message, for an `undo` that rewinds the conversation.
  const lengthAt = new Map<number, number>();
  for (let i = start; i < records.length; i++) {
    const r = records[i];
    switch (r.kind) {
      case 'user_message':
        lengthAt.set(r.seq, messages.length);
        // The reminder went out ahead of the user's text, in the same message.
        messages.push(r.reminder ? { ...r.message, content: r.reminder.text + r.message.content } : copyMessage(r.message));
        break;
      case 'undo': {
        if (r.conversation_to_seq === undefined) break;
        const at = lengthAt.get(r.conversation_to_seq);
        if (at !== undefined) {
          messages = messages.slice(0, at);
          break;
        }
        // A rewind to before a compaction (or before where this read started): the history as it
        // was at that message, from the records before it.
        const target = records.findIndex((x) => x.kind === 'user_message' && x.seq === r.conversation_to_seq);
        if (target >= 0) messages = buildConversation(records.slice(0, target));
        break;
      }
      case 'assistant_turn':
        for (const m of r.messages) messages.push(copyMessage(m));
        break;
      case 'compaction_applied':
        messages = stripSystem(cloneMessages(r.messages));
        // Lengths before the compaction no longer index this history.
        lengthAt.clear();
        break;
      case 'prune_applied':
        messages = applyPrunePlan(messages, r.pruned);
        break;
      default:
        break;
    }
  }
  return messages;
}

/** The provider and model in effect at the end of the records (last `model_changed` wins). */
export function currentModel(records: readonly SessionRecord[]): { provider: string; model: string } | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (r.kind === 'model_changed' || r.kind === 'session_started') return { provider: r.provider, model: r.model };
  }
  return undefined;
}

// Messages hold only strings, booleans and arrays of flat objects: this is a full deep copy,
// several times cheaper than structuredClone on a 100k-record resume.
function copyMessage(m: Message): Message {
  switch (m.role) {
    case 'assistant': {
      const out: Message = { ...m };
      if (m.tool_calls) out.tool_calls = m.tool_calls.map((c) => ({ ...c }));
      if (m.reasoning) out.reasoning = m.reasoning.map((p) => ({ ...p }));
      // Part metadata is opaque provider JSON (possibly nested): the only part copied in depth.
      if (m.parts) out.parts = m.parts.map((p) => (p.meta ? { ...p, meta: structuredClone(p.meta) } : { ...p }));
      return out;
    }
    default:
      return { ...m };
  }
}

// ---- replay -----------------------------------------------------------------------------------

/** A piece of an assistant turn as shown: text, or a tool card at the point the call happened. */
export type ReplaySegment = { type: 'text'; text: string } | { type: 'tool'; tool: ToolActivity };

/** One item of the visible transcript, in file order. Pre-compaction turns stay visible. */
export type ReplayItem =
  | { type: 'user'; seq: number; text: string; images?: { media_type: string; bytes: number }[] }
  | { type: 'assistant'; seq: number; text: string; segments: ReplaySegment[]; usage: Usage; checkpoint: boolean }
  | { type: 'compaction'; seq: number; mode: 'manual' | 'auto'; status: string }
  | { type: 'model_changed'; seq: number; provider: string; model: string };

/**
 * What a UI shows when it reopens a session: user prompts, assistant text with tool cards placed
 * at their offsets, compaction markers (with their status text; '' for automatic ones) and model
 * switches. `session_started` produces no item.
 */
export function replayTranscript(records: readonly SessionRecord[]): ReplayItem[] {
  const items: ReplayItem[] = [];
  for (const r of records) {
    switch (r.kind) {
      case 'user_message':
        items.push({
          type: 'user',
          seq: r.seq,
          text: r.message.content,
          ...(r.message.images?.length ? { images: r.message.images.map((i) => ({ media_type: i.media_type, bytes: Math.floor((i.data.length * 3) / 4) })) } : {}),
        });
        break;
      case 'assistant_turn':
        items.push({
          type: 'assistant',
          seq: r.seq,
          text: r.text,
          segments: segmentTurn(r.text, r.tools),
          usage: { ...r.usage },
          checkpoint: r.checkpoint === true,
        });
        break;
      case 'compaction_applied':
        items.push({ type: 'compaction', seq: r.seq, mode: r.mode, status: r.status });
        break;
      case 'model_changed':
        items.push({ type: 'model_changed', seq: r.seq, provider: r.provider, model: r.model });
        break;
      default:
        break;
    }
  }
  return items;
}

/** Split `text` at the tools' offsets (clamped to the text, stable for equal offsets). */
export function segmentTurn(text: string, tools: readonly ToolActivity[]): ReplaySegment[] {
  const ordered = tools.map((tool, i) => ({ tool, i, at: Math.min(Math.max(0, tool.offset), text.length) })).sort((a, b) => a.at - b.at || a.i - b.i);
  const segments: ReplaySegment[] = [];
  let cursor = 0;
  for (const { tool, at } of ordered) {
    if (at > cursor) segments.push({ type: 'text', text: text.slice(cursor, at) });
    segments.push({ type: 'tool', tool: { ...tool } });
    cursor = Math.max(cursor, at);
  }
  if (cursor < text.length) segments.push({ type: 'text', text: text.slice(cursor) });
  return segments;
}
