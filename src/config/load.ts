import fs from 'node:fs';
import { KeenError } from '../errors.js';
import { projectConfigPath, userConfigPath } from './paths.js';
import { configSchema, type KeenConfig } from './schema.js';

/**
 * Loads `$KEEN_HOME/config.json` then `.keen/config.json` (the project wins). A missing file is
 * fine; unreadable JSON or a field that fails validation is a KeenError naming file and field.
 */
export function loadConfig(home: string, cwd: string): KeenConfig {
  const user = readConfigFile(userConfigPath(home));
  const project = readConfigFile(projectConfigPath(cwd));
  return mergeConfig(user, project);
}

export function readConfigFile(file: string): KeenConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new KeenError(`cannot read config ${file}: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new KeenError(`invalid JSON in config ${file}: ${(err as Error).message}`);
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.length ? issue.path.join('.') : '(top level)';
    const what = issue.code === 'unrecognized_keys' ? `unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}` : issue.message;
    throw new KeenError(`invalid config ${file}: field ${field}: ${what}`);
  }
  return parsed.data;
}

/** Project settings win; `models`, `providers`, `compaction` and `permissions` merge per key. */
export function mergeConfig(base: KeenConfig, over: KeenConfig): KeenConfig {
  return {
    ...base,
    ...over,
    models: { ...base.models, ...over.models },
    providers: { ...base.providers, ...over.providers },
    compaction: { ...base.compaction, ...over.compaction },
    permissions: { allow: [...(base.permissions?.allow ?? []), ...(over.permissions?.allow ?? [])] },
  };
}
