import type { ContentBlock, ConverseStreamOutput, Message as BedrockMessage } from '@aws-sdk/client-bedrock-runtime';
import type { AssistantMessage, ReasoningPart, ToolCall } from '../core/message.js';
import type { ModelTurnEvent } from '../core/provider.js';
import type { Usage } from '../core/usage.js';
import { BEDROCK_REASONING } from './bedrock-wire.js';

type TurnStop = Extract<ModelTurnEvent, { type: 'turn_end' }>['stopReason'];

/** What one ConverseStream reply amounts to once it has been read to the end. */
export interface ConverseTurn {
  native: BedrockMessage;
  message: AssistantMessage;
  stopReason: TurnStop;
  usage?: Usage;
}

type Block =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string; signature?: string; redacted: Uint8Array[] }
  | { kind: 'tool'; id: string; name: string; input: string; emitted: boolean };

/** Thrown when the event stream ends without `messageStop` (a cut connection); mapped to `network`. */
export class TruncatedStreamError extends Error {
  override name = 'TruncatedStreamError';
  constructor() {
    super('the Bedrock stream was truncated before the reply finished');
  }
}

function stopOf(reason: string | undefined): TurnStop {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'end_turn';
    case 'tool_use':
      return 'tool_use';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'max_tokens';
    default:
      return 'other';
  }
}

function toolCallOf(b: Extract<Block, { kind: 'tool' }>): ToolCall {
  return { id: b.id, name: b.name, args: b.input || '{}' };
}

function parseInput(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

/**
 * Reads a ConverseStream event stream, yielding text/reasoning deltas and each tool call as its
 * block closes, and returns the assembled reply. Throws what the SDK throws (and
 * {@link TruncatedStreamError}); the caller maps errors.
 */
export async function* readConverseStream(stream: AsyncIterable<ConverseStreamOutput>): AsyncGenerator<ModelTurnEvent, ConverseTurn> {
  const blocks = new Map<number, Block>();
  let stopReason: string | undefined;
  let stopped = false;
  let usage: Usage | undefined;

  for await (const ev of stream) {
    if (ev.contentBlockStart) {
      const tool = ev.contentBlockStart.start?.toolUse;
      if (tool) blocks.set(ev.contentBlockStart.contentBlockIndex ?? 0, { kind: 'tool', id: tool.toolUseId ?? '', name: tool.name ?? '', input: '', emitted: false });
    } else if (ev.contentBlockDelta) {
      const index = ev.contentBlockDelta.contentBlockIndex ?? 0;
      const delta = ev.contentBlockDelta.delta;
      const block = blocks.get(index);
      if (delta?.text !== undefined) {
        if (block?.kind === 'text') block.text += delta.text;
        else blocks.set(index, { kind: 'text', text: delta.text });
        if (delta.text) yield { type: 'text_delta', text: delta.text };
      } else if (delta?.reasoningContent) {
        const r = block?.kind === 'reasoning' ? block : { kind: 'reasoning' as const, text: '', redacted: [] };
        blocks.set(index, r);
        const rc = delta.reasoningContent;
        if (rc.text) {
          r.text += rc.text;
          yield { type: 'reasoning_delta', text: rc.text };
        }
        if (rc.signature) r.signature = (r.signature ?? '') + rc.signature;
        if (rc.redactedContent) r.redacted.push(rc.redactedContent);
      } else if (delta?.toolUse && block?.kind === 'tool') {
        block.input += delta.toolUse.input ?? '';
      }
    } else if (ev.contentBlockStop) {
      const block = blocks.get(ev.contentBlockStop.contentBlockIndex ?? 0);
      if (block?.kind === 'tool' && !block.emitted) {
        block.emitted = true;
        yield { type: 'tool_call', call: toolCallOf(block) };
      }
    } else if (ev.messageStop) {
      stopped = true;
      stopReason = ev.messageStop.stopReason;
    } else if (ev.metadata?.usage) {
      const u = ev.metadata.usage;
      usage = { input: u.inputTokens ?? 0, output: u.outputTokens ?? 0, cache_read: u.cacheReadInputTokens ?? 0, cache_write: u.cacheWriteInputTokens ?? 0 };
    }
  }
  if (!stopped) throw new TruncatedStreamError();

  const ordered = [...blocks.entries()].sort((a, b) => a[0] - b[0]).map(([, b]) => b);
  const content: ContentBlock[] = [];
  const reasoning: ReasoningPart[] = [];
  const calls: ToolCall[] = [];
  let text = '';
  for (const b of ordered) {
    if (b.kind === 'text') {
      text += b.text;
      if (b.text.trim()) content.push({ text: b.text });
    } else if (b.kind === 'reasoning') {
      if (b.redacted.length > 0) {
        const bytes = Buffer.concat(b.redacted);
        content.push({ reasoningContent: { redactedContent: bytes } });
        reasoning.push({ provider: BEDROCK_REASONING, text: '', redacted: true, encrypted_content: bytes.toString('base64') });
      } else {
        content.push({ reasoningContent: { reasoningText: { text: b.text, signature: b.signature } } });
        reasoning.push({ provider: BEDROCK_REASONING, text: b.text, ...(b.signature ? { signature: b.signature } : {}) });
      }
    } else {
      if (!b.emitted) yield { type: 'tool_call', call: toolCallOf(b) };
      calls.push(toolCallOf(b));
      content.push({ toolUse: { toolUseId: b.id, name: b.name, input: parseInput(b.input) as never } });
    }
  }
  const message: AssistantMessage = { role: 'assistant', content: text };
  if (calls.length > 0) message.tool_calls = calls;
  if (reasoning.length > 0) message.reasoning = reasoning;
  let stop = stopOf(stopReason);
  if (calls.length > 0 && stop === 'end_turn') stop = 'tool_use';
  return { native: { role: 'assistant', content }, message, stopReason: stop, usage };
}
