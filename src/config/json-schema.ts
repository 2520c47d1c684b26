import * as z from 'zod';
import { configSchema } from './schema.js';

/** Where the published schema lives (the package ships config.schema.json at its root). */
export const CONFIG_SCHEMA_URL = 'https://unpkg.com/@keen-cli/keen/config.schema.json';

/**
 * The JSON Schema of `config.json`, generated from the zod schema so the two cannot drift
 * (test/config/json-schema.test.ts checks the committed file against it).
 */
export function configJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(configSchema(), { io: 'input' }) as Record<string, unknown>;
  return { ...schema, $id: CONFIG_SCHEMA_URL, title: 'Keen configuration', description: 'Keen config: $KEEN_HOME/config.json and .keen/config.json (see docs/configuration.md).' };
}

/** The schema file's text: stable key order, two-space indent, final newline. */
export function configJsonSchemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}
