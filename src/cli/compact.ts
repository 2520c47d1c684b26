import { KeenError } from '../errors.js';
import { forStream, terminalStream } from '../security/terminal-text.js';
import { openCliSession } from './open-cli-session.js';
import type { RunFlags } from '../agent/flags.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * `keen compact [--session ID | --continue] [FOCUS]`: the manual compaction of the REPL, on a
 * stored session. Streams the summary to stdout, persists it and exits 0; on failure exits
 * non-zero with the transcript unchanged; SIGINT, SIGTERM and SIGHUP cancel it (exit 130, unchanged).
 */
export async function runCompactCommand(focus: string | undefined, flags: RunFlags): Promise<number> {
  if (!flags.session && !flags.continue) throw new KeenError('keen compact needs --session <id> or --continue (list sessions with `keen sessions`)', 2);
  const session = await openCliSession(flags);
  if (session.controller.appState.messages.length === 0) {
    await session.close();
    throw new KeenError(`session ${session.sessionId} has no conversation to compact`);
  }
  const controller = new AbortController();
  // Ctrl+C, kill and a closed terminal (SIGHUP) all cancel the compaction the same way (as a
  // headless turn does): the transcript stays unchanged and Keen exits 130. A second signal exits at once.
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(130);
    controller.abort();
  };
  for (const sig of SIGNALS) process.on(sig, onSignal);
  let failure: string | undefined;
  let kind = '';
  let applied = false;
  let wrote = '';
  // The summary is model text: sanitised for a terminal, exact for a pipe.
  const out = process.stdout.isTTY ? terminalStream((t) => process.stdout.write(t)) : { write: (t: string) => void process.stdout.write(t), end: () => undefined };
  try {
    for await (const ev of session.controller.compact(focus, controller.signal)) {
      if (ev.type === 'text_delta') {
        wrote += ev.text;
        out.write(ev.text);
      } else if (ev.type === 'error') {
        failure = ev.error.message;
        kind = ev.error.kind;
      } else if (ev.type === 'compaction_done') applied = true;
    }
  } finally {
    for (const sig of SIGNALS) process.off(sig, onSignal);
    await session.close();
  }
  out.end();
  if (wrote && !wrote.endsWith('\n')) process.stdout.write('\n');
  if (!applied) {
    process.stderr.write(forStream(process.stderr, `keen: compaction failed: ${(failure ?? 'no summary').replace(/; history unchanged$/, '')}; the session is unchanged\n`));
    return kind === 'cancelled' ? 130 : 1;
  }
  process.stderr.write(`Context compacted. Run \`keen --resume ${session.sessionId}\` to continue.\n`);
  return 0;
}
