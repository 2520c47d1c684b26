import type { ProviderAdapter } from '../core/provider.js';
import type { AdapterFactory, ProviderId, ProviderSettings } from './types.js';

/**
 * Provider id → lazy loader of its adapter module. Nothing here imports an SDK: each module
 * imports its own SDK inside `open`/factory, so only the provider in use is ever loaded.
 */
const LOADERS: Record<ProviderId, () => Promise<AdapterFactory>> = {
  anthropic: async () => (await import('./anthropic.js')).createAnthropicAdapter,
  openai: async () => (await import('./openai-chat.js')).createOpenAIChatAdapter,
  'openai-responses': async () => (await import('./openai-responses.js')).createOpenAIResponsesAdapter,
  codex: async () => (await import('./openai-codex.js')).createCodexAdapter,
  bedrock: async () => (await import('./bedrock.js')).createBedrockAdapter,
  genkit: async () => (await import('./genkit.js')).createGenkitAdapter,
};

/** Builds the adapter for `provider`. Throws KeenError when credentials are missing. */
export async function createAdapter(provider: ProviderId, settings: ProviderSettings): Promise<ProviderAdapter> {
  const factory = await LOADERS[provider]();
  return factory(settings);
}
