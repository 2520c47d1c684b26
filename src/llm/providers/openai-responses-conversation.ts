import type OpenAI from 'openai';
import type { ResponseCreateParamsStreaming, ResponseInputItem } from 'openai/resources/responses/responses';
import type { Message, ToolMessage } from '../core/message.js';
import { outputLimit, type TurnLimits } from '../core/provider.js';
import type { ChatRequest, ModelTurnEvent, ProviderConversation } from '../core/provider.js';
import { mapOpenAIError, truncatedStream, type OpenAIErrorContext } from './openai-errors.js';
import { instructionsOf, toResponsesInput, toResponsesTools, unansweredCalls, withoutItemIds } from './openai-responses-items.js';
import { ResponsesTurnAccumulator } from './openai-responses-turn.js';
import type { OpenAIModule } from './openai-sdk.js';

/** One Responses-speaking endpoint: the public API (`openai-responses`) or ChatGPT's Codex backend. */
export interface ResponsesEndpoint {
  model: string;
  getClient: () => Promise<{ sdk: OpenAIModule; client: OpenAI }>;
  errors: OpenAIErrorContext;
  /** Tag on stored reasoning; only reasoning with this tag is replayed to this endpoint. */
  reasoningProvider: string;
  /** The Codex backend: no `max_output_tokens`, and item ids are stripped (nothing is stored). */
  codex: boolean;
}

/** Native state: `instructions` (the system prompt) plus the `input` item list. */
interface ResponsesState {
  instructions: string;
  input: ResponseInputItem[];
}

export function openResponsesConversation(endpoint: ResponsesEndpoint, request: ChatRequest): ProviderConversation {
  return new ResponsesConversation(endpoint, request, {
    instructions: instructionsOf(request.messages),
    input: toResponsesInput(request.messages, endpoint.reasoningProvider),
  });
}

/**
 * Every request is self-contained (`store: false`): the whole input is resent, with reasoning
 * items carrying `encrypted_content` (requested via `include`) so reasoning survives tool turns.
 */
class ResponsesConversation implements ProviderConversation {
  constructor(
    private readonly endpoint: ResponsesEndpoint,
    private readonly request: ChatRequest,
    private state: ResponsesState,
  ) {}

  async *streamTurn(signal: AbortSignal, limits?: TurnLimits): AsyncIterable<ModelTurnEvent> {
    const { endpoint } = this;
    let sdk: OpenAIModule | undefined;
    const local = new AbortController();
    const onAbort = () => local.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) local.abort();
    let finished = false;
    try {
      const loaded = await endpoint.getClient();
      sdk = loaded.sdk;
      const stream = await loaded.client.responses.create(this.body(outputLimit(this.request.maxOutputTokens, limits)), { signal: local.signal });
      const acc = new ResponsesTurnAccumulator(endpoint.reasoningProvider, endpoint.errors);
      for await (const event of stream) {
        for (const ev of acc.add(event)) yield ev;
        if (acc.error) break;
      }
      finished = true;
      if (signal.aborted) {
        yield { type: 'error', error: mapOpenAIError(undefined, signal, sdk, endpoint.errors) };
        return;
      }
      if (acc.error) {
        yield { type: 'error', error: acc.error };
        return;
      }
      if (!acc.finished) {
        yield { type: 'error', error: truncatedStream(endpoint.errors) };
        return;
      }
      const { message, calls, items, stopReason, usage } = acc.result();
      for (const call of calls) yield { type: 'tool_call', call };
      if (usage) yield { type: 'usage', usage };
      this.state.input.push(...items);
      yield { type: 'turn_end', message, stopReason };
    } catch (err) {
      finished = true;
      yield { type: 'error', error: mapOpenAIError(err, signal, sdk, endpoint.errors) };
    } finally {
      signal.removeEventListener('abort', onAbort);
      if (!finished) local.abort();
    }
  }

  private body(maxOutputTokens: number): ResponseCreateParamsStreaming {
    const { request, endpoint, state } = this;
    const body: ResponseCreateParamsStreaming = {
      model: request.model || endpoint.model,
      input: endpoint.codex ? withoutItemIds(state.input) : state.input,
      stream: true,
      store: false,
      include: ['reasoning.encrypted_content'],
    };
    if (state.instructions) body.instructions = state.instructions;
    if (request.tools.length > 0) body.tools = toResponsesTools(request.tools);
    if (!endpoint.codex && maxOutputTokens > 0) body.max_output_tokens = maxOutputTokens;
    if (request.thinkingBudget && request.thinkingBudget > 0) {
      body.reasoning = { effort: effortFor(request.thinkingBudget), summary: 'auto' };
    }
    return body;
  }

  appendToolResults(results: ToolMessage[]): void {
    for (const r of results) this.state.input.push({ type: 'function_call_output', call_id: r.tool_call_id, output: r.content });
  }

  appendUserText(text: string): void {
    this.state.input.push({ type: 'message', role: 'user', content: text });
  }

  /** True while a function call in the input has no output: it must stay paired with its reasoning. */
  hasPendingState(): boolean {
    return unansweredCalls(this.state.input).length > 0;
  }

  replaceHistory(replacement: Message[]): void {
    this.state = {
      instructions: instructionsOf(replacement),
      input: toResponsesInput(replacement, this.endpoint.reasoningProvider),
    };
  }

  fork(): ProviderConversation {
    return new ResponsesConversation(this.endpoint, this.request, structuredClone(this.state));
  }
}

/** Keen speaks in thinking-token budgets; Responses in effort levels. */
function effortFor(budget: number): 'low' | 'medium' | 'high' {
  if (budget <= 4096) return 'low';
  if (budget <= 16384) return 'medium';
  return 'high';
}
