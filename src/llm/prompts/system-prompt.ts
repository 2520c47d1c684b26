import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { findProjectInstructions, INSTRUCTION_FILE_CAP } from './project-instructions.js';

const BASE_INSTRUCTIONS = `You are Keen, a coding agent working in the user's terminal. You read, edit and run code through tools to get the user's task done.

- Understand before changing: read the relevant files, search the code, run the tests.
- Make focused edits with edit_file; create files with write_file; run commands with bash.
- After changing code, verify it (build, tests, or running it) when that is possible.
- Be concise. Report what you changed and what you verified. Quote exact paths and commands.
- If a tool fails, read the error and adapt; do not repeat the same failing call.`;

export interface SystemPromptInput {
  cwd: string;
  now?: Date;
  /** Agent mode line (e.g. plan mode) when one is active. */
  mode?: string;
  /** Replaces the base instructions (`--system-prompt`). */
  base?: string;
  /** Added at the end (`--append-system-prompt`). */
  append?: string;
}

/**
 * The system prompt, built fresh for every turn: base instructions, the environment (cwd, OS,
 * date, git status) and project instructions. Never stored in history or transcripts.
 */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const now = input.now ?? new Date();
  const parts = [input.base?.trim() || BASE_INSTRUCTIONS];
  const env = [
    `Working directory: ${input.cwd}`,
    `Platform: ${os.platform()} ${os.release()}`,
    `Date: ${now.toISOString().slice(0, 10)}`,
  ];
  const git = gitStatus(input.cwd);
  if (git) env.push(`Git status:\n${git}`);
  parts.push(`# Environment\n${env.join('\n')}`);
  if (input.mode) parts.push(`# Mode\n${input.mode}`);
  for (const file of findProjectInstructions(input.cwd)) {
    const note = file.truncated ? `\n[truncated to ${INSTRUCTION_FILE_CAP} bytes]` : '';
    parts.push(`# Project instructions (${file.path})\n${file.content.trim()}${note}`);
  }
  if (input.append?.trim()) parts.push(input.append.trim());
  return parts.join('\n\n');
}

function gitStatus(cwd: string): string | undefined {
  try {
    const out = execFileSync('git', ['status', '--short', '--branch'], { cwd, encoding: 'utf8', timeout: 2000, stdio: ['ignore', 'pipe', 'ignore'] });
    const lines = out.trimEnd().split('\n');
    return lines.length > 40 ? [...lines.slice(0, 40), `… ${lines.length - 40} more`].join('\n') : lines.join('\n');
  } catch {
    return undefined;
  }
}
