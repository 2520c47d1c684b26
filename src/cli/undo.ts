import { KeenError } from '../errors.js';
import { forStream } from '../security/terminal-text.js';
import { keenHome } from '../config/paths.js';
import { latestSession } from '../transcript/list.js';
import { SessionStore } from '../transcript/store.js';
import { checkpointsDir, undoSummary, undoTurns } from '../undo/undo-turns.js';

export interface UndoFlags {
  session?: string;
  turns?: string;
  force?: boolean;
}

/**
 * `keen undo [--session ID] [--turns N] [--force]`: restore the files the last N turns that
 * changed files changed (default 1, the latest session of this directory). Atomic; refuses with
 * one line, changing nothing, when a file was changed outside Keen since (unless --force).
 */
export async function runUndoCommand(flags: UndoFlags): Promise<number> {
  const turns = flags.turns === undefined ? 1 : Number(flags.turns);
  if (!Number.isInteger(turns) || turns < 1) throw new KeenError(`--turns must be a whole number of turns, 1 or more (got "${flags.turns}")`, 2);
  const home = keenHome(process.env);
  const cwd = process.cwd();
  const id = flags.session ?? (await latestSession(home, cwd))?.id;
  if (!id) throw new KeenError('no session to undo in this directory; pass --session ID (`keen sessions` lists them)');
  const { store } = await SessionStore.open(home, cwd, id, { env: process.env });
  try {
    const outcome = await undoTurns({ dir: checkpointsDir(store.dir), sink: store, cwd, turns, force: flags.force });
    process.stdout.write(forStream(process.stdout, `${undoSummary(outcome)}\n`));
    return 0;
  } finally {
    await store.close();
  }
}
