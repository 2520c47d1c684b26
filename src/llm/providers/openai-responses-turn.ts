import type { ResponseInputItem, ResponseStreamEvent, ResponseUsage } from 'openai/resources/responses/responses';
import type { LlmError } from '../core/errors.js';
import type { AssistantMessage, ReasoningPart, ToolCall } from '../core/message.js';
import type { ModelTurnEvent } from '../core/provider.js';
import type { Usage } from '../core/usage.js';
import { streamError, type OpenAIErrorContext } from './openai-errors.js';

export type TurnStop = 'end_turn' | 'tool_use' | 'max_tokens' | 'other';

export interface ResponsesTurnResult {
  message: AssistantMessage;
  calls: ToolCall[];
  /** The reply's output items, in output order, ready to append to the native input. */
  items: ResponseInputItem[];
  stopReason: TurnStop;
  usage?: Usage;
}

/**
 * Folds one streamed Responses reply into deltas (yielded as they arrive), the generic assistant
 * message, and the native items to replay: reasoning (with `encrypted_content`), the assistant
 * message, function calls — in the order the model produced them, since a reasoning item must be
 * followed by the item it led to.
 */
export class ResponsesTurnAccumulator {
  private readonly items: ResponseInputItem[] = [];
  private readonly calls: ToolCall[] = [];
  private readonly reasoning: ReasoningPart[] = [];
  private readonly texts: string[] = [];
  private readonly argDeltas = new Map<string, string>();
  private usage: Usage | undefined;
  private status: 'completed' | 'incomplete' | undefined;
  private incompleteReason: string | undefined;
  /** Set when the stream reported a failure in-band. */
  error: LlmError | undefined;

  constructor(
    private readonly reasoningProvider: string,
    private readonly errors: OpenAIErrorContext,
  ) {}

  get finished(): boolean {
    return this.status !== undefined;
  }

  *add(event: ResponseStreamEvent): Generator<ModelTurnEvent> {
    switch (event.type) {
      case 'response.output_text.delta':
      case 'response.refusal.delta':
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
        this.usage = normaliseUsage(event.response.usage);
        break;
      case 'response.incomplete':
        this.status = 'incomplete';
        this.incompleteReason = event.response.incomplete_details?.reason ?? undefined;
        this.usage = normaliseUsage(event.response.usage);
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
      const text = item.content.map((c) => (c.type === 'output_text' ? c.text : c.type === 'refusal' ? c.refusal : '')).join('');
      this.texts.push(text);
      const native: ResponseInputItem = { type: 'message', role: 'assistant', content: text };
      if (item.phase) native.phase = item.phase;
      this.items.push(native);
    } else if (item.type === 'reasoning') {
      const summary = item.summary.map((s) => s.text).join('\n\n');
      const text = summary || (item.content ?? []).map((c) => c.text).join('');
      const part: ReasoningPart = { provider: this.reasoningProvider, text, id: item.id };
      if (item.encrypted_content) part.encrypted_content = item.encrypted_content;
      this.reasoning.push(part);
      // Without encrypted content a store:false server cannot resolve the item: do not replay it.
      if (item.encrypted_content) {
        this.items.push({ type: 'reasoning', id: item.id, summary: item.summary, encrypted_content: item.encrypted_content });
      }
    } else if (item.type === 'function_call') {
      const raw = item.arguments || (item.id ? this.argDeltas.get(item.id) : undefined) || '';
      const args = raw.trim() ? raw : '{}';
      this.calls.push({ id: item.call_id, name: item.name, args });
      const native: ResponseInputItem = { type: 'function_call', call_id: item.call_id, name: item.name, arguments: args };
      if (item.id) native.id = item.id;
      this.items.push(native);
    }
  }

  result(): ResponsesTurnResult {
    const message: AssistantMessage = { role: 'assistant', content: this.texts.join('') };
    if (this.calls.length) message.tool_calls = [...this.calls];
    if (this.reasoning.length) message.reasoning = [...this.reasoning];
    let stopReason: TurnStop = 'end_turn';
    if (this.calls.length) stopReason = 'tool_use';
    else if (this.status === 'incomplete') stopReason = this.incompleteReason === 'max_output_tokens' ? 'max_tokens' : 'other';
    return { message, calls: [...this.calls], items: [...this.items], stopReason, usage: this.usage };
  }
}

/** Responses counts cached tokens inside input_tokens; Keen's `input` excludes them. */
function normaliseUsage(u: ResponseUsage | null | undefined): Usage | undefined {
  if (!u) return undefined;
  const cached = u.input_tokens_details?.cached_tokens ?? 0;
  const written = u.input_tokens_details?.cache_write_tokens ?? 0;
  return {
    input: Math.max(0, (u.input_tokens ?? 0) - cached - written),
    output: u.output_tokens ?? 0,
    cache_read: cached,
    cache_write: written,
  };
}
