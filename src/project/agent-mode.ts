/** The agent mode: `build` changes files; `plan` only reads, searches and delegates. */
export type AgentMode = 'plan' | 'build';

export const AGENT_MODES: readonly AgentMode[] = ['plan', 'build'];

export function parseAgentMode(value: string): AgentMode | undefined {
  const v = value.trim().toLowerCase();
  return (AGENT_MODES as readonly string[]).includes(v) ? (v as AgentMode) : undefined;
}

/** The system prompt's mode section (none in build mode). */
export function modeSection(mode: AgentMode): string | undefined {
  if (mode !== 'plan') return undefined;
  return [
    'Plan mode is on. You may read files, search, run read-only commands and delegate read-only subagents, but you must not change anything:',
    'write_file, edit_file, commands that modify files or state, and other mutating tools are refused while plan mode is on.',
    'Investigate, then answer with a concrete plan (files to change, steps, how to verify). The user switches to build mode (/mode build) to carry it out.',
  ].join('\n');
}

/** What a reminder says when plan mode ends mid-session (build mode has no prompt section). */
export const BUILD_MODE_NOTE = 'Plan mode is off: build mode is on, so you may change files and run commands that modify them again.';

/** The tool error a mutating call gets in plan mode. */
export function planModeRefusal(tool: string): string {
  return `Plan mode is on: ${tool} would change files or state, so it was not run. Read, search and plan instead; the user can switch to build mode with /mode build (or --mode build).`;
}

/** A mutable holder for the session's mode: the REPL's /mode changes it between turns. */
export interface ModeHolder {
  get(): AgentMode;
  set(mode: AgentMode): void;
}
