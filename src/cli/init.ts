import { forStream } from '../security/terminal-text.js';
import { existingInstructions, initPrompt } from '../project/init-prompt.js';
import type { RunFlags } from '../agent/flags.js';
import { runHeadless } from './run.js';

/**
 * `keen init`: one headless turn asking the model to draft AGENTS.md. The file is written through
 * write_file, so the usual permissions apply (`--yolo` or a `write_file` allow rule). A
 * repository that already has instructions is left alone.
 */
export async function runInitCommand(flags: RunFlags): Promise<number> {
  const existing = existingInstructions(process.cwd());
  if (existing) {
    process.stderr.write(forStream(process.stderr, `keen: ${existing} already exists; edit it, or remove it to draft a new one\n`));
    return 1;
  }
  return runHeadless([initPrompt(process.cwd())], flags);
}
