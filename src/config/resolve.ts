import { KeenError } from '../errors.js';
import { PROVIDER_IDS, type ProviderId, type ProviderSettings } from './provider-settings.js';
import { canonicalModelName, closeNames, providerByPrefix, providerMismatch } from './model-lookup.js';
import { DEFAULT_MODEL, FALLBACK_CAPACITY, MODEL_CATALOG, type ModelInfo } from './models.js';
import type { KeenConfig } from './schema.js';

/** Flags that override config for one run. */
export interface RuntimeFlags {
  provider?: string;
  model?: string;
  profile?: string;
}

/** Everything a run needs to pick and talk to a model, resolved once. */
export interface ResolvedModel {
  provider: ProviderId;
  /** The name the user chose (catalog or config key). */
  name: string;
  /** The id sent on the wire. */
  wireId: string;
  info: ModelInfo;
  settings: ProviderSettings;
  /** One line to show when `--provider` is not the model's own (see providerMismatch). */
  warning?: string;
}

/** Whether a catalog model takes images: every one does unless it says not; an unknown model takes none. */
function imagesOf(catalog: ModelInfo | undefined): boolean {
  return catalog ? catalog.images !== false : false;
}

/**
 * Resolves provider and model from flags, then config, then defaults: the provider is `--provider`,
 * else the provider of `--model` (config `models` or the catalog), else config `provider`, else the
 * provider of the model's name prefix (`gpt-*` → openai), else Anthropic. An unknown provider is
 * a KeenError listing the valid ones; a `--model` that neither the catalog, the config nor a
 * provider prefix knows is a KeenError listing close names (unless `--provider` or config
 * `provider` vouches for it); a config `apiKeyEnv` naming an unset variable is a KeenError
 * naming both.
 */
export function resolveModel(config: KeenConfig, flags: RuntimeFlags, env: NodeJS.ProcessEnv, home: string): ResolvedModel {
  const requested = flags.provider ?? config.provider;
  if (requested !== undefined && !(PROVIDER_IDS as readonly string[]).includes(requested)) {
    throw new KeenError(`unknown provider "${requested}"; choose one of ${PROVIDER_IDS.join(', ')}`, 2);
  }
  const typed = flags.model ?? (flags.provider ? undefined : config.model) ?? DEFAULT_MODEL[(requested ?? 'anthropic') as ProviderId];
  // `opus`, `haiku`, `gpt` …: the catalog's current model of that family.
  const name = canonicalModelName(typed, config.models);
  const entry = config.models?.[name];
  const catalog = MODEL_CATALOG[name];
  const known = entry?.provider ?? catalog?.provider ?? (entry || catalog ? undefined : providerByPrefix(name));
  if (flags.model && !entry && !catalog && !known && !flags.provider && !config.provider) {
    const close = closeNames(name, [...Object.keys(config.models ?? {}), ...Object.keys(MODEL_CATALOG)]);
    const hint = close.length ? `did you mean ${close.join(', ')}? ` : '';
    throw new KeenError(`unknown model "${name}"; ${hint}\`keen models\` lists the known ones (add --provider to use a model the catalog does not know)`);
  }
  // A flag beats config: `--model gpt-5` picks gpt-5's provider even when config names another.
  const provider = (flags.provider ?? (flags.model ? known : undefined) ?? config.provider ?? known ?? 'anthropic') as ProviderId;
  const warning = flags.provider ? providerMismatch(name, provider, entry?.provider ?? catalog?.provider ?? providerByPrefix(name)) : undefined;
  const info: ModelInfo = {
    provider,
    contextWindow: entry?.contextWindow ?? catalog?.contextWindow ?? FALLBACK_CAPACITY.contextWindow,
    maxOutputTokens: entry?.maxOutputTokens ?? catalog?.maxOutputTokens ?? FALLBACK_CAPACITY.maxOutputTokens,
    images: entry?.images ?? imagesOf(catalog ?? (entry?.id ? MODEL_CATALOG[entry.id] : undefined)),
  };
  const providerEntry = config.providers?.[provider];
  const keyEnv = entry?.apiKeyEnv ?? providerEntry?.apiKeyEnv;
  const keyField = entry?.apiKeyEnv ? `models.${name}.apiKeyEnv` : `providers.${provider}.apiKeyEnv`;
  const settings: ProviderSettings = {
    model: entry?.id ?? name,
    apiKey: keyEnv ? env[keyEnv] : undefined,
    baseURL: entry?.baseURL ?? providerEntry?.baseURL,
    maxTokensField: entry?.maxTokensField ?? providerEntry?.maxTokensField,
    awsProfile: flags.profile ?? config.awsProfile,
    region: config.region,
    maxRetries: config.maxRetries,
    maxRetryWaitMs: config.maxRetryWait === undefined ? undefined : config.maxRetryWait * 1000,
    home,
    env,
  };
  if (keyEnv && !settings.apiKey && !settings.baseURL) {
    throw new KeenError(`${keyEnv} is not set (named by ${keyField} in config). Export it, or pick another provider with --provider.`);
  }
  return { provider, name, wireId: settings.model, info, settings, warning };
}
