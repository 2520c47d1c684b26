/**
 * Writing a session page: the file name it gets by default, the plot limits of a budget, and the
 * write itself with a one-line error naming the file. Shared by `keen export` and `/export`.
 */
import { writeFile, chmod } from 'node:fs/promises';
import { resolve } from 'node:path';
import { KeenError, errorText } from '../errors.js';
import { scrubText } from '../security/scrubber.js';
import type { ContextBudget } from '../tokens/context-budget.js';
import type { PlotLimits } from './context-plot.js';
import { renderSessionPage, type SessionPageInput } from './session-page.js';

/** `keen-session-<id>.html`: what an export without a file name writes in the working directory. */
export function defaultPageName(sessionId: string): string {
  return `keen-session-${sessionId}.html`;
}

export function limitsOf(budget: Pick<ContextBudget, 'window' | 'threshold' | 'autoEnabled'>): PlotLimits {
  return budget.autoEnabled ? { window: budget.window, threshold: budget.threshold } : { window: budget.window };
}

/**
 * Renders the page and writes it to `file` (relative to `cwd`); returns the absolute path. The page
 * holds the whole transcript: it is scrubbed of the credentials known now (a transcript may be
 * older than one) and written private (0600), as the transcript itself is.
 */
export async function writeSessionPage(file: string, cwd: string, input: SessionPageInput): Promise<string> {
  const target = resolve(cwd, file);
  try {
    await writeFile(target, scrubText(renderSessionPage(input)), { mode: 0o600 });
    await chmod(target, 0o600);
  } catch (err) {
    throw new KeenError(`could not write ${file}: ${errorText(err)}`);
  }
  return target;
}
