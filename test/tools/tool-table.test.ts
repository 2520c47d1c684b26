/**
 * The build-time table of built-in tool definitions (src/tools/definition-table.ts,
 * tool-table-build.ts): every built-in tool is in it, with the JSON Schema the registry would send
 * and the estimator's count of the definition. The bundle's use of it is checked end to end in
 * test/e2e/launch-path.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { TokenEstimator } from '../../src/tokens/token-estimator.js';
import { defaultTools } from '../../src/tools/index.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { buildToolTable, builtInTools } from '../../src/tools/tool-table-build.js';

describe('the built-in tool table', () => {
  it('holds each built-in tool as the registry defines it, with the estimator’s count', () => {
    const tools = builtInTools();
    const table = buildToolTable(tools);
    const definitions = createToolRegistry(tools).definitions();
    expect(Object.keys(table)).toEqual(definitions.map((d) => d.name));
    for (const def of definitions) {
      expect(table[def.name].input_schema, def.name).toEqual(def.input_schema);
      expect(table[def.name].description).toBe(def.description);
      expect(table[def.name].tokens).toBe(new TokenEstimator().tools([def]));
    }
  });

  it('each built-in tool’s schema is one constant, whatever its factory is given (the table is keyed by name)', () => {
    const once = builtInTools();
    const again = builtInTools();
    const sandboxed = defaultTools({ keenHome: '/nonexistent/keen-home' });
    for (const tool of once) {
      expect(again.find((t) => t.name === tool.name)?.schema, tool.name).toBe(tool.schema);
      const variant = sandboxed.find((t) => t.name === tool.name);
      if (variant) expect(variant.schema, tool.name).toBe(tool.schema);
    }
  });

  it('is plain JSON (the build defines it as a literal)', () => {
    const table = buildToolTable();
    expect(JSON.parse(JSON.stringify(table))).toEqual(table);
  });
});
