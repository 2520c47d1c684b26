import type { ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import type { TurnDelta, WireTurn } from '../core/conversation.js';
import { assistantMessage, type AssistantPart, type ToolCall } from '../core/message.js';
import type { Usage } from '../core/usage.js';
import { BEDROCK_REASONING } from './bedrock-wire.js';
import { mapStopReason } from './kit/stop-reason.js';
import { normaliseUsage } from './kit/usage.js';

type Block =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string; signature?: string; redacted: Uint8Array[] }
  | { kind: 'tool'; id: string; name: string; input: string };

function toolCallOf(b: Extract<Block, { kind: 'tool' }>): ToolCall {
  return { id: b.id, name: b.name, args: b.input || '{}' };
}

/** Why Bedrock declined, by its stop reason (the stream carries no explanation of its own). */
const REFUSALS: Record<string, string> = {
  guardrail_intervened: 'a Bedrock guardrail intervened',
  content_filtered: 'Bedrock filtered the content',
};

/**
 * Reads a ConverseStream event stream, yielding text/reasoning deltas, and returns the lossless
 * reply (parts in block order, redacted reasoning as base64), or undefined when the stream ended
 * without `messageStop` (a cut connection). Throws what the SDK throws; the caller maps errors.
 */
export async function* readConverseStream(stream: AsyncIterable<ConverseStreamOutput>): AsyncGenerator<TurnDelta, WireTurn | undefined> {
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
  if (!stopped) return undefined;

  const parts: AssistantPart[] = [];
  for (const [, b] of [...blocks.entries()].sort((a, c) => a[0] - c[0])) {
    if (b.kind === 'text') parts.push({ type: 'text', text: b.text });
    else if (b.kind === 'reasoning') {
      if (b.redacted.length > 0) parts.push({ type: 'reasoning', text: '', redacted: true, encrypted_content: Buffer.concat(b.redacted).toString('base64') });
      else parts.push({ type: 'reasoning', text: b.text, ...(b.signature ? { signature: b.signature } : {}) });
    } else parts.push({ type: 'tool_call', ...toolCallOf(b) });
  }
  const message = assistantMessage(parts, BEDROCK_REASONING);
  const mapped = mapStopReason(stopReason, (message.tool_calls ?? []).length > 0);
  const explanation = mapped === 'refusal' && stopReason ? REFUSALS[stopReason] : undefined;
  return { message, stopReason: mapped, ...(usage ? { usage } : {}), ...(explanation ? { explanation } : {}) };
}
