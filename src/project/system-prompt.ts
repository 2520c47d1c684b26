import { platform, release } from 'node:os';
import { BUILD_MODE_NOTE, modeSection, type AgentMode } from './agent-mode.js';
import { gitStatusSync } from './git-status.js';
import { INSTRUCTION_FILE_CAP } from './instructions.js';
import { MEMORY_FILE_CAP } from './memory.js';
import type { ProjectContext } from './project-context.js';
import { type PromptSection, renderSections } from './prompt-sections.js';
import { capNote } from './read-capped.js';

const BASE_INSTRUCTIONS = `You are Keen, a coding agent working in the user's terminal. You read, edit and run code through tools to get the user's task done.

- Understand before changing: read the relevant files, search the code, run the tests.
- Make focused edits with edit_file; create files with write_file; run commands with bash.
- After changing code, verify it (build, tests, or running it) when that is possible.
- Be concise. Report what you changed and what you verified. Quote exact paths and commands.
- If a tool fails, read the error and adapt; do not repeat the same failing call.`;

export interface SystemPromptInput {
  cwd: string;
  now?: Date;
  mode?: AgentMode;
  /** Instructions, memory, skills and subagents (from `loadProjectContext`). */
  context?: ProjectContext;
  /** Whether the `task` tool is offered (a subagent gets none, and no agents list). */
  subagents?: boolean;
  /** Replaces the base instructions (a subagent's definition body, `--system-prompt`). */
  base?: string;
  /** Added at the end (`--append-system-prompt`). */
  append?: string;
  /**
   * The git status text (a session's `GitStatusCache.text`, which never waits). Absent: git runs
   * here, synchronously, capped (src/project/git-status.ts).
   */
  gitStatus?: () => string | undefined;
}

/**
 * The system prompt: base instructions, the environment (cwd, OS, date, git status), the agent
 * mode, instructions (global, then project from the outermost directory in), memory (user, then
 * project), the skills' names and descriptions and the subagents. Never stored in history, so all
 * of it survives a compaction.
 */
export function buildSystemPrompt(input: SystemPromptInput): string {
  return renderSections(systemPromptSections(input));
}

/**
 * The same prompt as keyed sections (src/project/prompt-sections.ts): a session writes them once
 * and sends what changes later as a reminder.
 */
export function systemPromptSections(input: SystemPromptInput): PromptSection[] {
  const now = input.now ?? new Date();
  const parts: PromptSection[] = [
    { key: 'base', text: input.base?.trim() || BASE_INSTRUCTIONS },
    { key: 'env', text: `# Environment\nWorking directory: ${input.cwd}\nPlatform: ${platform()} ${release()}` },
    { key: 'date', text: `Date: ${now.toISOString().slice(0, 10)}`, line: true },
  ];
  const git = input.gitStatus ? input.gitStatus() : gitStatusSync(input.cwd);
  if (git) parts.push({ key: 'git', text: `Git status:\n${git}`, line: true });
  const mode = input.mode && modeSection(input.mode);
  if (mode) parts.push({ key: 'mode', text: `# Mode\n${mode}` });
  const ctx = input.context;
  if (ctx) parts.push(...contextSections(ctx, !!input.subagents));
  if (input.append?.trim()) parts.push({ key: 'append', text: input.append.trim() });
  return parts;
}

/** How a reminder words a section that is gone (plan mode ended, a file deleted). */
export function removedSection(key: string, old: string): string {
  if (key === 'mode') return `# Mode\n${BUILD_MODE_NOTE}`;
  if (key === 'git') return 'Git status: not available any more.';
  return `${old.split('\n', 1)[0]}\n(removed)`;
}

/** Instructions, memory, skills and subagents, in that order. */
function contextSections(ctx: ProjectContext, subagents: boolean): PromptSection[] {
  const parts: PromptSection[] = [];
  for (const file of ctx.instructions) {
    const label = file.scope === 'user' ? 'User instructions' : 'Project instructions';
    parts.push({ key: `instructions:${file.path}`, text: `# ${label} (${file.path})\n${file.content.trim()}${capNote(file, INSTRUCTION_FILE_CAP)}` });
  }
  for (const file of ctx.memory) {
    const label = file.scope === 'user' ? 'User memory' : 'Project memory';
    parts.push({ key: `memory:${file.path}`, text: `# ${label} (${file.path})\n${file.content.trim()}${capNote(file, MEMORY_FILE_CAP)}` });
  }
  parts.push({
    key: 'remember',
    text: '# Memory\nWhen the user states a lasting preference or a fact about this project worth keeping across sessions, save it with the remember tool (scope "project" for this repository, "user" for every project). Keep each fact to one line.',
  });
  if (ctx.skills.length) {
    const lines = ctx.skills.map((s) => `- ${s.name}: ${s.description}`);
    parts.push({
      key: 'skills',
      text: `# Skills\nSkills are instructions for particular tasks. When a task matches a skill, load it with the skill tool before starting.\n${lines.join('\n')}`,
    });
  }
  if (subagents) {
    const agents = ctx.agents.map((a) => `- ${a.name}: ${a.description}`);
    const list = agents.length ? `\nAgents:\n${agents.join('\n')}` : '';
    parts.push({
      key: 'subagents',
      text: `# Subagents\nThe task tool delegates a self-contained job to a subagent with a fresh context; only its final answer comes back. Give it a complete prompt. Omit agent for a general-purpose subagent. Several task calls in one reply run at the same time.${list}`,
    });
  }
  return parts;
}
