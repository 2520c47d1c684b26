import { CodexCredentials } from '../auth/codex-credentials.js';
import type { ChatRequest, ProviderAdapter, ProviderConversation } from '../core/provider.js';
import type { AdapterFactory, ProviderSettings } from './types.js';
import { openResponsesConversation, type ResponsesEndpoint } from './openai-responses-wire.js';
import { retryPolicy } from '../net/retry-fetch.js';
import { openAIClientLoader } from './openai-sdk.js';

export const CODEX_DEFAULT_BASE_URL = 'https://chatgpt.com/backend-api/codex';

/** Reasoning from the Codex backend is encrypted for it alone: replayed only to Codex. */
export const CODEX_REASONING = 'codex';

/**
 * `--provider codex`: the Responses wire format against ChatGPT's Codex backend
 * (`<base>/responses`; base = settings.baseURL, else KEEN_CODEX_BASE_URL, else chatgpt.com), signed in
 * with a ChatGPT account. Tokens come from `$KEEN_HOME/auth.json` (`keen login codex`), else the
 * Codex CLI's `$CODEX_HOME/auth.json`; an expired access token is refreshed before the request.
 * The system prompt goes in `instructions`, the conversation in `input`; no `max_output_tokens`
 * (the backend rejects it). Throws KeenError naming `keen login codex` when no login is stored.
 */
export const createCodexAdapter: AdapterFactory = async (settings: ProviderSettings): Promise<ProviderAdapter> => {
  const credentials = await CodexCredentials.load(settings.home, settings.env);
  const baseURL = (settings.baseURL ?? settings.env.KEEN_CODEX_BASE_URL?.trim()) || CODEX_DEFAULT_BASE_URL;
  const retry = retryPolicy(settings);
  const headers: Record<string, string> = { 'OpenAI-Beta': 'responses=experimental', originator: 'keen' };
  const accountId = credentials.accountId;
  if (accountId) headers['chatgpt-account-id'] = accountId;
  const endpoint: ResponsesEndpoint = {
    model: settings.model,
    reasoningProvider: CODEX_REASONING,
    codex: true,
    errors: {
      service: 'Codex',
      authHint: 'Run `keen login codex` to sign in again.',
      retries: retry.maxRetries,
      redact: (text) => credentials.redact(text),
    },
    getClient: openAIClientLoader({
      provider: 'codex',
      // Called before every request, so a token that expires mid-session is refreshed in time.
      apiKey: () => credentials.accessToken(),
      baseURL: baseURL.replace(/\/+$/, ''),
      retry,
      defaultHeaders: headers,
      env: settings.env,
      // No OPENAI_ORG_ID / OPENAI_PROJECT_ID headers: those belong to the API platform.
      platformHeaders: false,
    }),
  };
  return {
    id: 'codex',
    async open(request: ChatRequest): Promise<ProviderConversation> {
      return openResponsesConversation(endpoint, request);
    },
  };
};
