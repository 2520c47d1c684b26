import { bashTool } from './bash.js';
import { editFileTool } from './edit-file.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { listDirTool } from './list-dir.js';
import { readFileTool } from './read-file.js';
import { createToolRegistry, type Tool } from './registry.js';
import type { ToolRegistry } from './types.js';
import { writeFileTool } from './write-file.js';

export { toolSummary } from './summary.js';
export { createToolRegistry, CANCELLED, ToolError, type Tool } from './registry.js';
export {
  createHeadlessGate,
  createSessionGate,
  parseAllowRule,
  MUTATING_TOOLS,
  type AllowRule,
  type ExplainingGate,
  type SessionAnswer,
  type SessionGate,
} from './permissions.js';

/** The seven built-in tools, in the order the model sees them. */
export function defaultTools(): Tool[] {
  return [readFileTool, writeFileTool, editFileTool, globTool, grepTool, bashTool, listDirTool];
}

/** A registry with read_file, write_file, edit_file, glob, grep, bash and list_dir, then `extra` (e.g. recall). */
export function createDefaultRegistry(extra: Tool[] = []): ToolRegistry {
  return createToolRegistry([...defaultTools(), ...extra]);
}
