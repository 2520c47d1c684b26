/**
 * Environment overrides for the main config keys: `KEEN_MAX_TURNS=20 keen run …`. They sit
 * between the config files and the flags (flags > environment > project file > user file).
 * `KEEN_PROVIDER` and `KEEN_MODEL` act as `--provider` / `--model` defaults (see commands.ts),
 * so they pick a model the way the flags do. Pure: a bad value is a KeenError naming the variable.
 */
import { KeenError } from '../errors.js';
import { mergeConfig } from './load.js';
import { configSchema, type KeenConfig } from './schema.js';

type Parse = (raw: string) => unknown;

const int: Parse = (raw) => (/^-?\d+$/.test(raw.trim()) ? Number(raw) : Number.NaN);
const num: Parse = (raw) => (raw.trim() === '' ? Number.NaN : Number(raw));
const bool: Parse = (raw) => (/^(1|true|yes|on)$/i.test(raw.trim()) ? true : /^(0|false|no|off)$/i.test(raw.trim()) ? false : raw);
const str: Parse = (raw) => raw;

/** Variable → where it goes in the config, and how its text is read. */
export const ENV_OVERRIDES: { name: string; key: string; parse: Parse; doc: string }[] = [
  { name: 'KEEN_MAX_TURNS', key: 'maxTurns', parse: int, doc: 'model requests per turn (config maxTurns)' },
  { name: 'KEEN_THINKING_BUDGET', key: 'thinkingBudget', parse: int, doc: 'extended thinking budget (config thinkingBudget)' },
  { name: 'KEEN_MAX_RETRIES', key: 'maxRetries', parse: int, doc: 'SDK retries (config maxRetries)' },
  { name: 'KEEN_REGION', key: 'region', parse: str, doc: 'Bedrock region (config region)' },
  { name: 'KEEN_AWS_PROFILE', key: 'awsProfile', parse: str, doc: 'Bedrock profile (config awsProfile)' },
  { name: 'KEEN_COMPACTION_AUTO', key: 'compaction.auto', parse: bool, doc: 'automatic compaction on/off (config compaction.auto)' },
  { name: 'KEEN_COMPACTION_THRESHOLD', key: 'compaction.threshold', parse: num, doc: 'compaction threshold fraction (config compaction.threshold)' },
  { name: 'KEEN_WORKING_WINDOW', key: 'compaction.workingWindow', parse: int, doc: 'working window in tokens (config compaction.workingWindow)' },
];

/** `config` with the set variables of `env` applied on top. */
export function applyEnvOverrides(config: KeenConfig, env: NodeJS.ProcessEnv): KeenConfig {
  const over: Record<string, unknown> = {};
  for (const o of ENV_OVERRIDES) {
    const raw = env[o.name];
    if (raw === undefined || raw === '') continue;
    const value = o.parse(raw);
    const [head, tail] = o.key.split('.');
    const candidate = tail ? { [head]: { [tail]: value } } : { [head]: value };
    const parsed = configSchema().safeParse(candidate);
    if (!parsed.success || (typeof value === 'number' && Number.isNaN(value))) {
      const why = parsed.success ? 'not a number' : parsed.error.issues[0].message;
      throw new KeenError(`invalid ${o.name}=${JSON.stringify(raw)}: ${why} (it sets ${o.key})`);
    }
    if (tail) over[head] = { ...(over[head] as object | undefined), [tail]: value };
    else over[head] = value;
  }
  return Object.keys(over).length ? mergeConfig(config, over as KeenConfig) : config;
}
