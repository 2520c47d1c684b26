/**
 * The providers Keen knows and what a provider factory is handed: config resolves these
 * (src/config/resolve.ts), the adapters in src/providers consume them. They live with the
 * config so that config never imports the provider layer.
 */

/** Provider ids accepted by `--provider` and the `provider` config key. */
export const PROVIDER_IDS = ['anthropic', 'openai', 'openai-responses', 'codex', 'bedrock', 'genkit'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

/**
 * What a provider factory needs. Values come from config and the environment (resolved by
 * src/config); factories read `env` for their own variables (API keys, base URLs) and never
 * write any secret anywhere.
 */
export interface ProviderSettings {
  model: string;
  /** Explicit key from config (`models.<name>.apiKeyEnv` resolved); else the provider's env var. */
  apiKey?: string;
  baseURL?: string;
  /**
   * Chat Completions: the field the output limit goes in, when config names one
   * (`models.<name>.maxTokensField`, else `providers.<id>.maxTokensField`).
   */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** AWS profile for Bedrock. */
  awsProfile?: string;
  region?: string;
  /** Retries for 408/409/429/5xx and connection failures before the error surfaces. */
  maxRetries?: number;
  /** The longest wait before a retry, in ms (config `maxRetryWait`, seconds). */
  maxRetryWaitMs?: number;
  /**
   * Where a warning the provider's library gave goes: one line (the service's name first), shown
   * as Keen's own warning — headless on stderr after `keen: warning:`, in the REPL as a notice.
   */
  onWarning?: (line: string) => void;
  /** KEEN_HOME, for providers that keep auth state (Codex). */
  home: string;
  env: NodeJS.ProcessEnv;
}
