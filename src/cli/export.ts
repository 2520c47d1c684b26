import { KeenError } from '../errors.js';
import { defaultPageName, limitsOf, writeSessionPage } from '../export/write-page.js';
import { renderSessionPage } from '../export/session-page.js';
import { forStream } from '../security/terminal-text.js';
import type { RunFlags } from '../agent/flags.js';
import { openCliSession } from './open-cli-session.js';
import { scrubText } from '../security/scrubber.js';

/**
 * `keen export (--session ID | --continue) [-o FILE]`: a stored session as one self-contained HTML
 * page (docs/export.md). `-o -` writes it to stdout. Like `keen context`, nothing is sent to the
 * model and no credentials are needed.
 */
export async function runExportCommand(flags: RunFlags & { output?: string }): Promise<number> {
  if (!flags.session && !flags.continue) throw new KeenError('keen export needs --session <id> or --continue (list sessions with `keen sessions`)', 2);
  const session = await openCliSession(flags, { inspect: true });
  try {
    const input = { sessionId: session.sessionId, records: session.records, limits: limitsOf(session.budget), exportedAt: new Date() };
    if (flags.output === '-') {
      process.stdout.write(forStream(process.stdout, scrubText(renderSessionPage(input))));
      return 0;
    }
    const file = await writeSessionPage(flags.output ?? defaultPageName(session.sessionId), process.cwd(), input);
    process.stdout.write(forStream(process.stdout, `${file}\n`));
    return 0;
  } finally {
    await session.close();
  }
}
