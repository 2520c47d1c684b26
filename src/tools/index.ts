import { bashTool, createBashTool, type BashToolOptions } from './bash.js';
import { editFileTool } from './edit-file.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { listDirTool } from './list-dir.js';
import { readFileTool } from './read-file.js';
import { createToolRegistry, type Tool } from './registry.js';
import type { ToolRegistry } from './types.js';
import { webFetchTool } from './web-fetch.js';
import { writeFileTool } from './write-file.js';

export { toolSummary } from './summary.js';
export { createRememberTool } from './remember.js';
export { createSkillTool } from './skill.js';
export { createTaskTool, TASK_TOOL, type SubagentRunner, type TaskArgs } from './task.js';
export { planModeHolder, planModeRegistry, mutatingCalls, readOnlyToolSet } from './plan-mode-registry.js';
export { createToolRegistry, CANCELLED, ToolError, type Tool } from './registry.js';
export {
  createHeadlessGate,
  createSessionGate,
  parseRule,
  MUTATING_TOOLS,
  type Rule,
  type ExplainingGate,
  type SessionAnswer,
  type SessionGate,
} from './permissions/index.js';

/** The built-in tools, in the order the model sees them; `bash` takes the sandbox options. */
export function defaultTools(options?: BashToolOptions): Tool[] {
  const bash = options ? createBashTool(options) : bashTool;
  return [readFileTool, writeFileTool, editFileTool, globTool, grepTool, bash, listDirTool, webFetchTool];
}

/** A registry with read_file, write_file, edit_file, glob, grep, bash, list_dir and web_fetch, then `extra` (e.g. recall). */
export function createDefaultRegistry(options?: BashToolOptions, extra: Tool[] = []): ToolRegistry {
  return createToolRegistry([...defaultTools(options), ...extra]);
}
