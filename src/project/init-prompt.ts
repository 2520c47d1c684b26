import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from './repo-root.js';

/** Where `/init` and `keen init` have the model write: `AGENTS.md` at the repository root. */
export function initTarget(cwd: string): string {
  return join(repoRoot(cwd), 'AGENTS.md');
}

/** An instruction file that already exists at the repository root (then /init does nothing). */
export function existingInstructions(cwd: string): string | undefined {
  const root = repoRoot(cwd);
  return ['AGENTS.md', 'KEEN.md', 'CLAUDE.md'].map((n) => join(root, n)).find((f) => existsSync(f));
}

/** The turn `/init` sends: the model explores and writes AGENTS.md through write_file (which asks). */
export function initPrompt(cwd: string): string {
  const target = initTarget(cwd);
  return [
    `Draft an AGENTS.md for this repository and write it to ${relative(cwd, target) || 'AGENTS.md'} with write_file.`,
    '',
    'First explore: list the top-level files, read the package manifest / build files, the README and CI configuration, and look at a few source and test files.',
    'Then write a concise AGENTS.md (under 150 lines) for an agent working here:',
    '- Build, test, lint and run commands (exact commands; how to run a single test).',
    '- The layout: the main folders and what lives in them.',
    '- Conventions: language and style rules, naming, error handling, how tests are written, anything the README or configs enforce.',
    '- Pitfalls worth knowing (generated files, slow steps, required environment).',
    'Only state what you verified in the repository. Do not invent commands.',
  ].join('\n');
}
