import { effortForBudget } from './kit/thinking-form.js';
import type OpenAI from 'openai';
import { announcingWaits } from './kit/retry-events.js';
import { withRetryListener } from '../net/retry-fetch.js';
import type { ResponseCreateParamsStreaming } from 'openai/resources/responses/responses';
import { Conversation, type WireTranslation } from '../core/conversation.js';
import { outputLimit } from '../core/provider.js';
import type { ChatRequest, ProviderConversation } from '../core/provider.js';
import { mapOpenAIError, StreamFailure, type OpenAIErrorContext } from './openai-errors.js';
import { ResponsesEncoder, toResponsesTools, withinImageLimits, type ResponsesState } from './openai-responses-items.js';
import { ResponsesTurnAccumulator } from './openai-responses-turn.js';
import type { OpenAIModule } from './openai-sdk.js';

/** One Responses-speaking endpoint: the public API (`openai-responses`) or ChatGPT's Codex backend. */
export interface ResponsesEndpoint {
  model: string;
  getClient: () => Promise<{ sdk: OpenAIModule; client: OpenAI }>;
  errors: OpenAIErrorContext;
  /** Tag on stored reasoning; only reasoning with this tag is replayed to this endpoint. */
  reasoningProvider: string;
  /** The Codex backend: no `max_output_tokens`, and item ids are left out (nothing is stored). */
  codex: boolean;
}

export function openResponsesConversation(endpoint: ResponsesEndpoint, request: ChatRequest): ProviderConversation {
  return Conversation.open(responsesWire(endpoint, request), request.messages);
}

/**
 * Every request is self-contained (`store: false`): the whole input is resent, with reasoning
 * items carrying `encrypted_content` (requested via `include`) so reasoning survives tool turns.
 * A function call without its output is pending state: a compaction never splits the pair.
 */
function responsesWire(endpoint: ResponsesEndpoint, request: ChatRequest): WireTranslation<ResponsesState> {
  let sdk: OpenAIModule | undefined;
  const tools = request.tools.length > 0 ? toResponsesTools(request.tools) : undefined;
  return {
    service: endpoint.errors.service,
    encoder: () => new ResponsesEncoder(endpoint.reasoningProvider, endpoint.codex),
    replaceSystem: 'replace',
    pairsToolCalls: true,
    classify: (err, signal) => mapOpenAIError(err, signal, sdk, endpoint.errors),
    async *send(state, signal, limits) {
      const loaded = await endpoint.getClient();
      sdk = loaded.sdk;
      const maxOutputTokens = outputLimit(request.maxOutputTokens, limits);
      const body: ResponseCreateParamsStreaming = {
        model: request.model || endpoint.model,
        // Images beyond the request limits become a placeholder in this body only.
        input: [...withinImageLimits(state.input)],
        stream: true,
        store: false,
        include: ['reasoning.encrypted_content'],
      };
      if (state.instructions) body.instructions = state.instructions;
      if (tools) body.tools = tools;
      if (!endpoint.codex && maxOutputTokens > 0) body.max_output_tokens = maxOutputTokens;
      // The session's budget, so one effort for every request (the summary's fork included).
      if (request.thinkingBudget && request.thinkingBudget > 0) {
        body.reasoning = { effort: effortForBudget(request.thinkingBudget), summary: 'auto' };
      }
      // One session, one cache: the service routes requests with the same key to the same cache.
      if (request.sessionId) body.prompt_cache_key = request.sessionId;
      // Codex CLI also sends the conversation id as a header; the backend keys its cache on it.
      const headers = endpoint.codex && request.sessionId ? { session_id: request.sessionId } : undefined;
      const stream = yield* announcingWaits((listener) =>
        loaded.client.responses.create(body, { signal, fetchOptions: withRetryListener(listener), ...(headers ? { headers } : {}) }),
      );
      const acc = new ResponsesTurnAccumulator(endpoint.reasoningProvider, endpoint.errors);
      for await (const event of stream) {
        yield* acc.add(event);
        if (acc.error) break;
      }
      if (acc.error && !signal.aborted) throw new StreamFailure(acc.error);
      return acc.finished ? acc.result() : undefined;
    },
  };
}
