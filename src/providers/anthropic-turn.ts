/**
 * Decodes one streamed Anthropic reply: emits deltas as they arrive and, once `message_stop`
 * has been seen, yields the lossless assistant message (parts in block order) and usage.
 */
import type { RawContentBlockDelta, RawContentBlockStartEvent, RawMessageStreamEvent, RefusalStopDetails } from '@anthropic-ai/sdk/resources/messages';
import { assistantMessage, type AssistantPart, type ToolCall } from '../core/message.js';
import type { TurnDelta, WireTurn } from '../core/conversation.js';
import type { Usage } from '../core/usage.js';
import { ANTHROPIC_REASONING } from './anthropic-wire.js';
import { mapStopReason } from './kit/stop-reason.js';

type OpenBlock =
  | { kind: 'text'; text: string }
  | { kind: 'thinking'; thinking: string; signature: string }
  | { kind: 'redacted'; data: string }
  | { kind: 'tool_use'; id: string; name: string; json: string; initial: unknown }
  /** Server-side blocks (web search results, ...) this client neither shows nor replays. */
  | { kind: 'ignored' };

interface RawUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

export class TurnAssembler {
  private readonly blocks = new Map<number, OpenBlock>();
  private readonly usage: Usage = { input: 0, output: 0, cache_read: 0, cache_write: 0 };
  private stopReason: string | null = null;
  private stopDetails: RefusalStopDetails | null = null;
  private stopped = false;
  /** A stream without its opening `message_start` is not a reply (a proxy's or a broken server's). */
  private started = false;

  /** Folds one SSE event in; returns the events to report now. */
  accept(event: RawMessageStreamEvent): TurnDelta[] {
    switch (event.type) {
      case 'message_start':
        this.started = true;
        this.takeUsage(event.message.usage);
        return [];
      case 'content_block_start':
        this.blocks.set(event.index, openBlock(event.content_block));
        return [];
      case 'content_block_delta':
        return this.delta(event.index, event.delta);
      case 'message_delta':
        this.stopReason = event.delta.stop_reason ?? this.stopReason;
        this.stopDetails = event.delta.stop_details ?? this.stopDetails;
        this.takeUsage(event.usage);
        return [];
      case 'message_stop':
        this.stopped = true;
        return [];
      default:
        return [];
    }
  }

  /** The finished turn, or undefined when the stream ended before `message_stop`. */
  finish(): WireTurn | undefined {
    if (!this.stopped || !this.started) return undefined;
    const parts: AssistantPart[] = [];
    for (const index of [...this.blocks.keys()].sort((a, b) => a - b)) {
      const b = this.blocks.get(index)!;
      if (b.kind === 'text') {
        if (b.text !== '') parts.push({ type: 'text', text: b.text });
      } else if (b.kind === 'thinking') {
        parts.push({ type: 'reasoning', text: b.thinking, signature: b.signature });
      } else if (b.kind === 'redacted') {
        parts.push({ type: 'reasoning', text: '', encrypted_content: b.data, redacted: true });
      } else if (b.kind === 'tool_use') {
        parts.push({ type: 'tool_call', ...toolCallOf(b) });
      }
    }
    const message = assistantMessage(parts, ANTHROPIC_REASONING);
    const stopReason = mapStopReason(this.stopReason, (message.tool_calls ?? []).length > 0);
    const explanation = stopReason === 'refusal' ? refusalExplanation(this.stopDetails) : undefined;
    return { message, stopReason, usage: { ...this.usage }, ...(explanation ? { explanation } : {}) };
  }

  private delta(index: number, delta: RawContentBlockDelta): TurnDelta[] {
    const block = this.blocks.get(index);
    if (delta.type === 'text_delta' && block?.kind === 'text') {
      block.text += delta.text;
      return delta.text ? [{ type: 'text_delta', text: delta.text }] : [];
    }
    if (delta.type === 'thinking_delta' && block?.kind === 'thinking') {
      block.thinking += delta.thinking;
      return delta.thinking ? [{ type: 'reasoning_delta', text: delta.thinking }] : [];
    }
    if (delta.type === 'signature_delta' && block?.kind === 'thinking') block.signature += delta.signature;
    else if (delta.type === 'input_json_delta' && block?.kind === 'tool_use') block.json += delta.partial_json;
    return [];
  }

  /** message_start carries the prompt usage; message_delta's counts are cumulative and win when set. */
  private takeUsage(u: RawUsage | null | undefined): void {
    if (!u) return;
    if (u.input_tokens != null) this.usage.input = u.input_tokens;
    if (u.output_tokens != null) this.usage.output = u.output_tokens;
    if (u.cache_read_input_tokens != null) this.usage.cache_read = u.cache_read_input_tokens;
    if (u.cache_creation_input_tokens != null) this.usage.cache_write = u.cache_creation_input_tokens;
  }
}

/** `stop_details` of a refused turn: the explanation, else the policy category, when given. */
function refusalExplanation(details: RefusalStopDetails | null): string | undefined {
  if (details?.type !== 'refusal') return undefined;
  return details.explanation?.trim() || (details.category ? `policy category ${details.category}` : undefined);
}

function openBlock(block: RawContentBlockStartEvent['content_block']): OpenBlock {
  switch (block.type) {
    case 'text':
      return { kind: 'text', text: block.text ?? '' };
    case 'thinking':
      return { kind: 'thinking', thinking: block.thinking ?? '', signature: block.signature ?? '' };
    case 'redacted_thinking':
      return { kind: 'redacted', data: block.data };
    case 'tool_use':
      return { kind: 'tool_use', id: block.id, name: block.name, json: '', initial: block.input };
    default:
      return { kind: 'ignored' };
  }
}

function toolCallOf(block: Extract<OpenBlock, { kind: 'tool_use' }>): ToolCall {
  // No input_json_delta at all means the start event's `input` was the whole input.
  const args = block.json !== '' ? block.json : JSON.stringify(block.initial ?? {});
  return { id: block.id, name: block.name, args };
}
