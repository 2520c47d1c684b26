/**
 * ACP session config options (`configOptions`, `session/set_config_option`; SDK 2.4.0 has no
 * `session/set_model`): the mode, as `modes` says it too, and the model — the config's models and
 * the catalog's, of the providers whose credential is there. Pure but for `modelChoices`.
 */
import type * as acp from '@agentclientprotocol/sdk';
import { MODEL_CATALOG } from '../config/models.js';
import type { ProviderId } from '../config/provider-settings.js';
import type { KeenConfig } from '../config/schema.js';
import type { KeenAuthMethod } from './auth-methods.js';

/** A model the editor may pick: its name (the option's value) and provider. */
export interface ModelChoice {
  name: string;
  provider: ProviderId;
}

/** Every model of a provider with a credential now (the current one always). */
export async function modelChoices(config: KeenConfig, methods: readonly KeenAuthMethod[], current: ModelChoice): Promise<ModelChoice[]> {
  const ready = new Set<ProviderId>([current.provider]);
  for (const m of methods) if (!(await m.missing())) ready.add(m.provider);
  // openai and openai-responses share one key.
  if (ready.has('openai') || ready.has('openai-responses')) for (const p of ['openai', 'openai-responses'] as const) ready.add(p);
  const all = new Map<string, ModelChoice>([[current.name, current]]);
  for (const [name, entry] of Object.entries(config.models ?? {})) {
    const provider = entry.provider ?? MODEL_CATALOG[name]?.provider;
    if (provider && ready.has(provider) && !all.has(name)) all.set(name, { name, provider });
  }
  for (const [name, info] of Object.entries(MODEL_CATALOG)) if (ready.has(info.provider) && !all.has(name)) all.set(name, { name, provider: info.provider });
  return [...all.values()];
}

/** The mode and model selectors. */
export function configOptions(modes: acp.SessionModeState, choices: readonly ModelChoice[], model: string): acp.SessionConfigOption[] {
  return [
    {
      id: 'mode',
      name: 'Mode',
      category: 'mode',
      type: 'select',
      currentValue: modes.currentModeId,
      options: modes.availableModes.map((m) => ({ value: m.id, name: m.name, description: m.description ?? null })),
    },
    {
      id: 'model',
      name: 'Model',
      category: 'model',
      type: 'select',
      currentValue: model,
      options: choices.map((c) => ({ value: c.name, name: c.name, description: c.provider })),
    },
  ];
}
