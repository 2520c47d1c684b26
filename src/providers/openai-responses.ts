import type { ChatRequest, ProviderAdapter, ProviderConversation } from '../core/provider.js';
import type { AdapterFactory, ProviderSettings } from './types.js';
import { openResponsesConversation, type ResponsesEndpoint } from './openai-responses-wire.js';
import { openAIPlatform } from './openai-platform.js';

/** Reasoning parts produced by the Responses API carry this provider tag. */
export const OPENAI_RESPONSES_REASONING = 'openai-responses';

/**
 * `--provider openai-responses`: the Responses API with `store: false`. Same credentials as Chat
 * Completions (settings.apiKey / OPENAI_API_KEY, settings.baseURL / OPENAI_BASE_URL). The system
 * prompt is sent as `instructions`; after a compaction both `instructions` and `input` are rebuilt
 * from the replacement.
 */
export const createOpenAIResponsesAdapter: AdapterFactory = async (settings: ProviderSettings): Promise<ProviderAdapter> => {
  const platform = openAIPlatform(settings, 'openai-responses');
  const endpoint: ResponsesEndpoint = {
    model: settings.model,
    reasoningProvider: OPENAI_RESPONSES_REASONING,
    codex: false,
    errors: platform.errors,
    getClient: platform.getClient,
  };
  return {
    id: 'openai-responses',
    async open(request: ChatRequest): Promise<ProviderConversation> {
      return openResponsesConversation(endpoint, request);
    },
  };
};
