import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configJsonSchema, configJsonSchemaText } from '../../src/config/json-schema.js';
import { readConfigFile } from '../../src/config/load.js';
import { configSchema } from '../../src/config/schema.js';
import { tempDir } from '../kit/temp-dir.js';

describe('the config JSON Schema', () => {
  it('is generated from the zod schema: every key, unknown keys refused, nested entries described', () => {
    const schema = configJsonSchema() as any;
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(configSchema().shape).sort());
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.compaction.properties.threshold).toMatchObject({ type: 'number', maximum: 1 });
    expect(schema.properties.models.additionalProperties.properties.contextWindow).toMatchObject({ type: 'integer' });
    expect(schema.$id).toMatch(/config\.schema\.json$/);
  });

  it('the build ships it as config.schema.json, identical to the generated text', () => {
    const file = path.resolve(import.meta.dirname, '../../config.schema.json');
    expect(fs.existsSync(file), 'run `npm run build` first (npm test does)').toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe(configJsonSchemaText());
    const pkg = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8'));
    expect(pkg.files).toContain('config.schema.json');
  });

  it('a config file may name it with "$schema"', () => {
    const dir = tempDir('keen-schema-');
    const file = path.join(dir, 'config.json');
    fs.writeFileSync(file, JSON.stringify({ $schema: 'https://unpkg.com/@keen-cli/keen/config.schema.json', maxTurns: 7 }));
    expect(readConfigFile(file)).toMatchObject({ maxTurns: 7 });
  });
});
