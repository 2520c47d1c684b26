import type { ProviderSettings } from '../config/provider-settings.js';
import { retryPolicy } from '../net/retry-fetch.js';
import type { OpenAIErrorContext } from './openai-errors.js';
import { openAIClientLoader, resolveOpenAIEndpoint, type LoadedOpenAI } from './openai-sdk.js';

/**
 * The public API or a compatible server (Chat Completions and Responses): the endpoint, its
 * error context and its client loader, from the same settings.
 */
export function openAIPlatform(
  settings: ProviderSettings,
  provider: 'openai' | 'openai-responses',
): { official: boolean; host: string; errors: OpenAIErrorContext; getClient: () => Promise<LoadedOpenAI> } {
  const target = resolveOpenAIEndpoint(settings);
  const retry = retryPolicy(settings);
  return {
    official: target.official,
    host: hostOf(target.baseURL),
    errors: { service: target.service, authHint: "Check OPENAI_API_KEY (or the model's apiKeyEnv).", retries: retry.maxRetries },
    getClient: openAIClientLoader({ provider, apiKey: target.apiKey, baseURL: target.baseURL, retry, env: settings.env, platformHeaders: true, secrets: [target.apiKey] }),
  };
}

/** The base URL's host name, lower case; empty when it does not parse. */
function hostOf(baseURL: string): string {
  try {
    return new URL(baseURL).hostname.toLowerCase();
  } catch {
    return '';
  }
}
