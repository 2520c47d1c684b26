/**
 * Builds the table of built-in tool definitions the bundle carries (definition-table.ts): run by
 * scripts/build.mjs at build time, never at run time.
 */
import { estimateTools } from '../tokens/token-estimator.js';
import type { ToolTable, ToolTableEntry } from './definition-table.js';
import { defaultTools } from './index.js';
import { createRecallTool } from './recall.js';
import { toInputSchema, type Tool } from './registry.js';
import { createRememberTool } from './remember.js';
import { createSkillTool } from './skill.js';
import { createTaskTool } from './task.js';

/** Every built-in tool, as its factories make it (the arguments only matter to `run`). */
export function builtInTools(): Tool[] {
  const unused = (): never => {
    throw new Error('a build-time tool never runs');
  };
  return [...defaultTools(), createRecallTool(unused), createRememberTool(unused), createSkillTool(unused), createTaskTool({ run: unused })];
}

export function buildToolTable(tools: readonly Tool[] = builtInTools()): ToolTable {
  const table: Record<string, ToolTableEntry> = {};
  for (const tool of tools) {
    if (tool.inputSchema) continue;
    const definition = { name: tool.name, description: tool.description, input_schema: toInputSchema(tool.schema) };
    table[tool.name] = { description: tool.description, input_schema: definition.input_schema, tokens: estimateTools([definition]) };
  }
  return table;
}
