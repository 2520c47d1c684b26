import { contextLines, sessionContextReport } from '../agent/context-report.js';
import { KeenError } from '../errors.js';
import { forStream } from '../security/terminal-text.js';
import type { RunFlags } from '../agent/flags.js';
import { openCliSession } from './open-cli-session.js';

/**
 * `keen context [--session ID | --continue] [--output-format json]`: where a stored session's
 * context window goes, the same figures as `/context` in the REPL. Nothing is sent to the model,
 * nothing is written, and no credentials are needed.
 */
export async function runContextCommand(flags: RunFlags): Promise<number> {
  if (!flags.session && !flags.continue) throw new KeenError('keen context needs --session <id> or --continue (list sessions with `keen sessions`)', 2);
  const session = await openCliSession(flags, { inspect: true });
  try {
    const report = sessionContextReport(session);
    if (flags.outputFormat === 'json') {
      process.stdout.write(`${JSON.stringify({ session_id: session.sessionId, provider: session.provider, model: session.model, ...report })}\n`);
    } else {
      process.stdout.write(forStream(process.stdout, `Context of session ${session.sessionId} (${session.provider}/${session.model})\n${contextLines(report, 60).join('\n')}\n`));
    }
    return 0;
  } finally {
    await session.close();
  }
}
