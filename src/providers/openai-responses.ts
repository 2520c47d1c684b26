import type { ChatRequest, ProviderAdapter, ProviderConversation } from '../core/provider.js';
import type { AdapterFactory, ProviderSettings } from './types.js';
import { openResponsesConversation, type ResponsesEndpoint } from './openai-responses-wire.js';
import { lazy } from '../core/lazy.js';
import { recordingFetch } from './kit/record.js';
import { createOpenAIClient, resolveOpenAIEndpoint } from './openai-sdk.js';

/** Reasoning parts produced by the Responses API carry this provider tag. */
export const OPENAI_RESPONSES_REASONING = 'openai-responses';

/**
 * `--provider openai-responses`: the Responses API with `store: false`. Same credentials as Chat
 * Completions (settings.apiKey / OPENAI_API_KEY, settings.baseURL / OPENAI_BASE_URL). The system
 * prompt is sent as `instructions`; after a compaction both `instructions` and `input` are rebuilt
 * from the replacement.
 */
export const createOpenAIResponsesAdapter: AdapterFactory = async (settings: ProviderSettings): Promise<ProviderAdapter> => {
  const target = resolveOpenAIEndpoint(settings);
  const retries = settings.maxRetries ?? 2;
  const endpoint: ResponsesEndpoint = {
    model: settings.model,
    reasoningProvider: OPENAI_RESPONSES_REASONING,
    codex: false,
    errors: {
      service: target.service,
      authHint: "Check OPENAI_API_KEY (or the model's apiKeyEnv).",
      retries,
    },
    getClient: lazy(() =>
      createOpenAIClient({
        apiKey: target.apiKey,
        baseURL: target.baseURL,
        maxRetries: retries,
        env: settings.env,
        fetch: recordingFetch(settings.env, 'openai-responses', undefined, [target.apiKey]),
      }),
    ),
  };
  return {
    id: 'openai-responses',
    async open(request: ChatRequest): Promise<ProviderConversation> {
      return openResponsesConversation(endpoint, request);
    },
  };
};
