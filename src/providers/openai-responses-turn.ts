import type { ResponseStreamEvent, ResponseUsage } from 'openai/resources/responses/responses';
import type { LlmError } from '../core/errors.js';
import { assistantMessage, type AssistantPart } from '../core/message.js';
import type { TurnDelta, WireTurn } from '../core/conversation.js';
import type { Usage } from '../core/usage.js';
import { mapStopReason } from './kit/stop-reason.js';
import { normaliseUsage } from './kit/usage.js';
import { streamError, type OpenAIErrorContext } from './openai-errors.js';

/**
 * Folds one streamed Responses reply into deltas (yielded as they arrive) and the lossless
 * assistant message: one part per output item — reasoning (id, summary parts, encrypted content),
 * message text (phase), function calls (item id) — in output order, since a reasoning item must
 * be followed by the item it led to.
 */
export class ResponsesTurnAccumulator {
  private readonly parts: AssistantPart[] = [];
  private readonly argDeltas = new Map<string, string>();
  private usage: Usage | undefined;
  private status: 'completed' | 'incomplete' | undefined;
  private incompleteReason: string | undefined;
  /** The model answered with a refusal content part. */
  private refused = false;
  /** Set when the stream reported a failure in-band. */
  error: LlmError | undefined;

  constructor(
    private readonly reasoningProvider: string,
    private readonly errors: OpenAIErrorContext,
  ) {}

  get finished(): boolean {
    return this.status !== undefined;
  }

  *add(event: ResponseStreamEvent): Generator<TurnDelta> {
    switch (event.type) {
      case 'response.output_text.delta':
        if (event.delta) yield { type: 'text_delta', text: event.delta };
        break;
      case 'response.refusal.delta':
        this.refused = true;
        if (event.delta) yield { type: 'text_delta', text: event.delta };
        break;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        if (event.delta) yield { type: 'reasoning_delta', text: event.delta };
        break;
      case 'response.function_call_arguments.delta':
        this.argDeltas.set(event.item_id, (this.argDeltas.get(event.item_id) ?? '') + event.delta);
        break;
      case 'response.output_item.done':
        this.itemDone(event.item);
        break;
      case 'response.completed':
        this.status = 'completed';
        this.usage = usageOf(event.response.usage);
        break;
      case 'response.incomplete':
        this.status = 'incomplete';
        this.incompleteReason = event.response.incomplete_details?.reason ?? undefined;
        this.usage = usageOf(event.response.usage);
        break;
      case 'response.failed': {
        const e = event.response.error;
        this.error = streamError(e?.code ?? '', e?.message ?? 'the response failed', this.errors);
        break;
      }
      case 'error':
        this.error = streamError(event.code ?? '', event.message, this.errors);
        break;
      default:
        break;
    }
  }

  private itemDone(item: Extract<ResponseStreamEvent, { type: 'response.output_item.done' }>['item']): void {
    if (item.type === 'message') {
      if (item.content.some((c) => c.type === 'refusal')) this.refused = true;
      const text = item.content.map((c) => (c.type === 'output_text' ? c.text : c.type === 'refusal' ? c.refusal : '')).join('');
      this.parts.push({ type: 'text', text, ...(item.phase ? { meta: { phase: item.phase } } : {}) });
    } else if (item.type === 'reasoning') {
      const summary = item.summary.map((s) => s.text).join('\n\n');
      const text = summary || (item.content ?? []).map((c) => c.text).join('');
      // The summary parts are kept as sent: a replay must not merge them.
      const part: AssistantPart = { type: 'reasoning', text, meta: { id: item.id, summary: item.summary } };
      if (item.encrypted_content) part.encrypted_content = item.encrypted_content;
      this.parts.push(part);
    } else if (item.type === 'function_call') {
      const raw = item.arguments || (item.id ? this.argDeltas.get(item.id) : undefined) || '';
      const args = raw.trim() ? raw : '{}';
      this.parts.push({ type: 'tool_call', id: item.call_id, name: item.name, args, ...(item.id ? { meta: { id: item.id } } : {}) });
    }
  }

  result(): WireTurn {
    const message = assistantMessage([...this.parts], this.reasoningProvider);
    const hasCalls = (message.tool_calls ?? []).length > 0;
    const native = this.refused ? 'refusal' : this.status === 'incomplete' ? (this.incompleteReason ?? 'incomplete') : 'completed';
    const explanation = this.incompleteReason === 'content_filter' ? 'the content filter stopped the answer' : undefined;
    return { message, stopReason: mapStopReason(native, hasCalls), ...(this.usage ? { usage: this.usage } : {}), ...(explanation ? { explanation } : {}) };
  }
}

/** Responses counts cached tokens inside input_tokens; Keen's `input` excludes them. */
function usageOf(u: ResponseUsage | null | undefined): Usage | undefined {
  if (!u) return undefined;
  return normaliseUsage({
    prompt: u.input_tokens,
    output: u.output_tokens,
    cacheRead: u.input_tokens_details?.cached_tokens,
    cacheWrite: (u.input_tokens_details as { cache_write_tokens?: number } | undefined)?.cache_write_tokens,
    promptIncludesCache: true,
  });
}
