import type { ProviderAdapter } from '../core/provider.js';

export { PROVIDER_IDS, type ProviderId, type ProviderSettings } from '../config/provider-settings.js';
import type { ProviderSettings } from '../config/provider-settings.js';

/**
 * Builds an adapter. Throws KeenError (one line naming the variable to set, and that --provider
 * picks another provider) when credentials are missing. Imports its SDK lazily.
 */
export type AdapterFactory = (settings: ProviderSettings) => Promise<ProviderAdapter>;
