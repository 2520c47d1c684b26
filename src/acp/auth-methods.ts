/**
 * ACP auth methods named from the providers Keen is configured for: one per provider that needs
 * a key or a login ("Anthropic API key (ANTHROPIC_API_KEY)", "ChatGPT login (keen login codex)").
 * `authenticate` only checks that the credential is there: Keen reads keys from its environment
 * and config, so there is nothing to receive, and no answer ever names a credential's value.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { findCodexTokens } from '../auth/codex-credentials.js';
import { readConfigFile } from '../config/load.js';
import { keenHome, userConfigPath } from '../config/paths.js';
import { PROVIDER_IDS, type ProviderId } from '../config/provider-settings.js';
import { resolveModel } from '../config/resolve.js';
import type { KeenConfig } from '../config/schema.js';
import type { SessionFlags } from '../agent/flags.js';

/** One way to sign in to one provider, and whether its credential is there now. */
export interface KeenAuthMethod {
  method: acp.AuthMethod;
  provider: ProviderId;
  /** Undefined when the credential is there; else one line saying what to set or run. */
  missing(): Promise<string | undefined>;
}

const set = (env: NodeJS.ProcessEnv, name: string | undefined) => name !== undefined && (env[name] ?? '').trim() !== '';

const WHERE = "in the environment `keen acp` runs with (the editor's agent server `env`, or the shell that starts the editor)";

function keyMethod(provider: ProviderId, id: string, label: string, vars: string[], config: KeenConfig, env: NodeJS.ProcessEnv): KeenAuthMethod {
  const own = config.providers?.[provider]?.apiKeyEnv;
  const names = own ? [own] : vars;
  const local = config.providers?.[provider]?.baseURL !== undefined;
  return {
    provider,
    method: { id, name: `${label} (${names[0]})`, description: `Keen reads ${names.join(' or ')} ${WHERE}.` },
    missing: async () => (local || names.some((n) => set(env, n)) ? undefined : `${names.join(' or ')} is not set ${WHERE}.`),
  };
}

function methodFor(provider: ProviderId, config: KeenConfig, env: NodeJS.ProcessEnv, home: string, profile?: string): KeenAuthMethod {
  switch (provider) {
    case 'anthropic':
      return keyMethod(provider, 'anthropic-api-key', 'Anthropic API key', ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'], config, env);
    case 'openai':
    case 'openai-responses':
      return keyMethod(provider, 'openai-api-key', 'OpenAI API key', ['OPENAI_API_KEY'], config, env);
    case 'genkit':
      return keyMethod(provider, 'gemini-api-key', 'Gemini API key', ['GEMINI_API_KEY', 'GOOGLE_API_KEY'], config, env);
    case 'codex':
      return {
        provider,
        method: { id: 'codex-login', name: 'ChatGPT login (keen login codex)', description: 'Run `keen login codex` in a terminal once; Keen keeps the login in its home folder.' },
        missing: async () => ((await findCodexTokens(home, env).catch(() => undefined)) ? undefined : 'no ChatGPT login: run `keen login codex` in a terminal, then try again.'),
      };
    case 'bedrock':
      return {
        provider,
        method: { id: 'aws-credentials', name: 'AWS credentials (AWS_PROFILE or AWS_ACCESS_KEY_ID)', description: `Keen uses the AWS credential chain ${WHERE}, or ~/.aws.` },
        missing: async () => {
          const awsDir = join(env.HOME?.trim() || homedir(), '.aws');
          const found =
            profile !== undefined ||
            config.awsProfile !== undefined ||
            ['AWS_PROFILE', 'AWS_ACCESS_KEY_ID', 'AWS_BEARER_TOKEN_BEDROCK', 'AWS_WEB_IDENTITY_TOKEN_FILE', 'AWS_CONTAINER_CREDENTIALS_FULL_URI'].some((n) => set(env, n)) ||
            ['credentials', 'config'].some((f) => existsSync(join(awsDir, f)));
          return found ? undefined : `no AWS credentials: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, ${WHERE}.`;
        },
      };
  }
}

/** The provider sessions open with (flags, then the user's config), as `keen run` would pick it. */
function defaultProvider(config: KeenConfig, flags: SessionFlags, env: NodeJS.ProcessEnv, home: string): ProviderId {
  try {
    return resolveModel(config, flags, env, home).provider;
  } catch {
    const named = flags.provider ?? config.provider;
    return (PROVIDER_IDS as readonly string[]).includes(named ?? '') ? (named as ProviderId) : 'anthropic';
  }
}

/**
 * The auth methods of `keen acp`: the provider sessions open with first, then every other
 * provider the user's config names (`provider`, `providers`, a model's `provider`). A config that
 * does not load names only the default.
 */
export function authMethods(flags: SessionFlags, env: NodeJS.ProcessEnv): KeenAuthMethod[] {
  const home = keenHome(env);
  let config: KeenConfig = {};
  try {
    config = readConfigFile(userConfigPath(home));
  } catch {
    // The session open names a broken config in its own error.
  }
  const providers = new Set<ProviderId>([defaultProvider(config, flags, env, home)]);
  if (config.provider) providers.add(config.provider);
  for (const id of Object.keys(config.providers ?? {})) providers.add(id as ProviderId);
  for (const entry of Object.values(config.models ?? {})) if (entry.provider) providers.add(entry.provider);
  const out = new Map<string, KeenAuthMethod>();
  for (const p of providers) {
    const m = methodFor(p, config, env, home, flags.profile);
    if (!out.has(m.method.id)) out.set(m.method.id, m);
  }
  return [...out.values()];
}
