import type { ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { assistantMessage, type AssistantMessage, type AssistantPart, type ToolCall } from '../core/message.js';
import type { ModelTurnEvent, TurnStopReason } from '../core/provider.js';
import type { Usage } from '../core/usage.js';
import { BEDROCK_REASONING } from './bedrock-wire.js';
import { mapStopReason } from './kit/stop-reason.js';
import { normaliseUsage } from './kit/usage.js';

/** What one ConverseStream reply amounts to once it has been read to the end. */
export interface ConverseTurn {
  message: AssistantMessage;
  stopReason: TurnStopReason;
  usage?: Usage;
}

type Block =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string; signature?: string; redacted: Uint8Array[] }
  | { kind: 'tool'; id: string; name: string; input: string };

/** Thrown when the event stream ends without `messageStop` (a cut connection); mapped to `network`. */
export class TruncatedStreamError extends Error {
  override name = 'TruncatedStreamError';
  constructor() {
    super('the Bedrock stream was truncated before the reply finished');
  }
}

function toolCallOf(b: Extract<Block, { kind: 'tool' }>): ToolCall {
  return { id: b.id, name: b.name, args: b.input || '{}' };
}

/**
 * Reads a ConverseStream event stream, yielding text/reasoning deltas, and returns the lossless
 * reply (parts in block order, redacted reasoning as base64). Throws what the SDK throws (and
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
      if (tool) blocks.set(ev.contentBlockStart.contentBlockIndex ?? 0, { kind: 'tool', id: tool.toolUseId ?? '', name: tool.name ?? '', input: '' });
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
    } else if (ev.messageStop) {
      stopped = true;
      stopReason = ev.messageStop.stopReason;
    } else if (ev.metadata?.usage) {
      const u = ev.metadata.usage;
      usage = normaliseUsage({ prompt: u.inputTokens, output: u.outputTokens, cacheRead: u.cacheReadInputTokens, cacheWrite: u.cacheWriteInputTokens, promptIncludesCache: false });
    }
  }
  if (!stopped) throw new TruncatedStreamError();

  const parts: AssistantPart[] = [];
  for (const [, b] of [...blocks.entries()].sort((a, c) => a[0] - c[0])) {
    if (b.kind === 'text') parts.push({ type: 'text', text: b.text });
    else if (b.kind === 'reasoning') {
      if (b.redacted.length > 0) parts.push({ type: 'reasoning', text: '', redacted: true, encrypted_content: Buffer.concat(b.redacted).toString('base64') });
      else parts.push({ type: 'reasoning', text: b.text, ...(b.signature ? { signature: b.signature } : {}) });
    } else parts.push({ type: 'tool_call', ...toolCallOf(b) });
  }
  const message = assistantMessage(parts, BEDROCK_REASONING);
  return { message, stopReason: mapStopReason(stopReason, (message.tool_calls ?? []).length > 0), usage };
}
