/**
 * `/undo` and `/rewind` in the REPL: the same engine as `keen undo` (src/undo/), on the open
 * session. `/undo [--force]` restores the files of the last turn that changed files; `/rewind`
 * picks a message and restores files (and, unless `--files`, the conversation) to before it, then
 * draws the transcript again from there and puts the message back in the input.
 */
import { errorText } from '../errors.js';
import { loadTranscript } from '../transcript/reader.js';
import { withoutRewound } from '../undo/rewound.js';
import { checkpointsDir, undoableTurns, undoSummary, undoTurns } from '../undo/undo-turns.js';
import type { CommandHost } from './command-host.js';
import { splitAttachments } from './input/mentions.js';
import { parseShellMessage } from './shell-message.js';

function flagsOf(args: string): { force: boolean; files: boolean; rest: string } {
  const words = args.split(/\s+/).filter(Boolean);
  return { force: words.includes('--force'), files: words.includes('--files'), rest: words.filter((w) => !w.startsWith('--')).join(' ') };
}

const NOTHING_TO_UNDO = 'Nothing to undo: no turn of this session changed files that were not undone already.';

export async function undoCommand(rt: CommandHost, args: string): Promise<void> {
  const session = rt.requireSession();
  const { force } = flagsOf(args);
  const dir = checkpointsDir(session.store.dir);
  try {
    if ((await undoableTurns(dir)).length === 0) {
      rt.notice(NOTHING_TO_UNDO, 'muted');
      return;
    }
    const outcome = await undoTurns({ dir, sink: session.store, cwd: rt.cwd, turns: 1, force });
    // Files already as they were: the summary says there was nothing to undo.
    rt.notice(undoSummary(outcome), outcome.files.length === 0 ? 'muted' : 'success');
  } catch (err) {
    rt.notice(`${errorText(err)}`.replace('use --force', 'use /undo --force'), 'error');
  }
}

/** What the input gets back for a rewound message: its text as typed (`!command` for a shell one, without attached files). */
function asTyped(text: string): string {
  const shell = parseShellMessage(text);
  return shell ? `!${shell.command}` : splitAttachments(text).text;
}

export async function rewindCommand(rt: CommandHost, args: string): Promise<void> {
  const session = rt.requireSession();
  const { force, files, rest } = flagsOf(args);
  // A new session is not on disk until its first message.
  const loaded = session.store.persisted ? await loadTranscript(session.store.path) : { records: [] };
  // Messages an earlier rewind took back are not offered again.
  const users = withoutRewound(loaded.records).flatMap((r) => (r.kind === 'user_message' ? [{ seq: r.seq, text: r.message.content }] : []));
  if (!rest) {
    const changed = new Set((await undoableTurns(checkpointsDir(session.store.dir))).map((m) => m.turn_seq));
    const options = users
      .slice()
      .reverse()
      .map((u) => ({ value: String(u.seq), label: asTyped(u.text).split('\n')[0].slice(0, 70), hint: changed.has(u.seq) ? 'changed files' : '' }));
    if (options.length === 0) {
      rt.notice('Nothing to rewind yet.', 'muted');
      return;
    }
    rt.store.dispatch({ type: 'picker-open', picker: { kind: 'rewind', title: 'Rewind to before which message? (files and conversation)', options } });
    return;
  }
  const seq = Number(rest);
  const message = users.find((u) => u.seq === seq);
  if (!message) {
    rt.notice(`/rewind: no message ${rest} in this session; run /rewind to pick one.`, 'error');
    return;
  }
  let summary: string;
  try {
    const outcome = await undoTurns({ dir: checkpointsDir(session.store.dir), sink: session.store, cwd: rt.cwd, fromSeq: seq, conversation: !files, force });
    summary = undoSummary(outcome);
  } catch (err) {
    rt.notice(errorText(err).replace('use --force', `use /rewind ${seq} --force`), 'error');
    return;
  }
  if (files) {
    rt.notice(summary, 'success');
    return;
  }
  // Reopen the session: its history and its replay are rebuilt from the transcript, which now
  // ends with the rewind; the screen is drawn again from there.
  const reopened = await rt.switchSession({ ...rt.baseFlags(), session: session.sessionId, provider: session.provider, model: session.model }, 'reset', 'Rewinding…');
  rt.notice(summary, 'success');
  if (reopened) rt.store.dispatch({ type: 'edit', command: { type: 'set', text: asTyped(message.text) } });
}
