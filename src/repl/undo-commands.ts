/**
 * `/undo` and `/rewind` in the REPL: the same engine as `keen undo` (src/undo/), on the open
 * session. `/undo [--force]` restores the files of the last turn that changed files; `/rewind`
 * picks a turn and restores files (and, unless `--files`, the conversation) to before it.
 */
import { errorText } from '../errors.js';
import { loadTranscript } from '../transcript/reader.js';
import { checkpointsDir, undoableTurns, undoSummary, undoTurns } from '../undo/undo-turns.js';
import type { CommandHost } from './command-host.js';

function flagsOf(args: string): { force: boolean; files: boolean; rest: string } {
  const words = args.split(/\s+/).filter(Boolean);
  return { force: words.includes('--force'), files: words.includes('--files'), rest: words.filter((w) => !w.startsWith('--')).join(' ') };
}

export async function undoCommand(rt: CommandHost, args: string): Promise<void> {
  const session = rt.requireSession();
  const { force } = flagsOf(args);
  try {
    const outcome = await undoTurns({ dir: checkpointsDir(session.store.dir), sink: session.store, cwd: rt.cwd, turns: 1, force });
    rt.notice(undoSummary(outcome), 'success');
  } catch (err) {
    rt.notice(`${errorText(err)}`.replace('use --force', 'use /undo --force'), 'error');
  }
}

export async function rewindCommand(rt: CommandHost, args: string): Promise<void> {
  const session = rt.requireSession();
  const { force, files, rest } = flagsOf(args);
  const loaded = await loadTranscript(session.store.path);
  const users = loaded.records.flatMap((r) => (r.kind === 'user_message' ? [{ seq: r.seq, text: r.message.content }] : []));
  if (!rest) {
    const changed = new Set((await undoableTurns(checkpointsDir(session.store.dir))).map((m) => m.turn_seq));
    const options = users
      .slice()
      .reverse()
      .map((u) => ({ value: String(u.seq), label: u.text.split('\n')[0].slice(0, 70), hint: changed.has(u.seq) ? 'changed files' : '' }));
    if (options.length === 0) {
      rt.notice('Nothing to rewind yet.', 'muted');
      return;
    }
    rt.store.dispatch({ type: 'picker-open', picker: { kind: 'rewind', title: 'Rewind to before which message? (files and conversation)', options } });
    return;
  }
  const seq = Number(rest);
  if (!users.some((u) => u.seq === seq)) {
    rt.notice(`/rewind: no message ${rest} in this session; run /rewind to pick one.`, 'error');
    return;
  }
  try {
    const outcome = await undoTurns({ dir: checkpointsDir(session.store.dir), sink: session.store, cwd: rt.cwd, fromSeq: seq, conversation: !files, force });
    rt.notice(undoSummary(outcome), 'success');
  } catch (err) {
    rt.notice(errorText(err).replace('use --force', `use /rewind ${seq} --force`), 'error');
    return;
  }
  if (!files) {
    // Reopen the session: its history is rebuilt from the transcript, which now ends with the rewind.
    await rt.switchSession({ ...rt.baseFlags(), session: session.sessionId, provider: session.provider, model: session.model }, 'reset', 'Rewinding…');
  }
}
