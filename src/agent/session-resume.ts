/**
 * Resuming a stored session: which one (`--session`, `--continue`), reading it (only from the
 * last compaction on, unless the whole is wanted), recording the tool calls Keen died in, and the
 * bounded stretch a resumed REPL replays.
 */
import { KeenError } from '../errors.js';
import type { KeenConfig } from '../config/schema.js';
import type { ToolDefinition } from '../core/provider.js';
import { emptyUsage } from '../core/usage.js';
import { interruptedToolResults } from '../transcript/interrupted.js';
import { latestSession } from '../transcript/list.js';
import { buildConversation } from '../transcript/projection.js';
import type { SessionRecord } from '../transcript/records.js';
import { SessionStore } from '../transcript/store.js';
import { storedCompactions } from './context-report.js';
import { storeSink, type SessionSink } from './deferred-store.js';
import type { CompactionNote } from './session-controller.js';
import type { OpenSessionOptions, ShownRecords } from './session-types.js';
import { configSecrets } from './session-wiring.js';

/**
 * How much of a long transcript before its last compaction a resumed REPL reads to replay: the
 * REPL shows the newest items of a replay anyway, and a 100 MB transcript must open fast.
 */
export const SHOWN_BUDGET = { maxRecords: 3000, maxBytes: 8 << 20 };

/** The id to resume: `--session`, or with `--continue` this folder's latest (none: a KeenError). */
export async function resumeTarget(opts: OpenSessionOptions, home: string): Promise<string | undefined> {
  if (opts.flags.session || !opts.flags.continue) return opts.flags.session;
  const latest = await latestSession(home, opts.cwd);
  if (!latest) throw new KeenError('no session to continue in this directory; start one with `keen run "…"` or `keen`');
  return latest.id;
}

/** A stored session, open for appending. */
export interface StoredSession {
  store: SessionSink;
  /** What was read (see LiveSession.records), interrupted tool calls' results included. */
  records: SessionRecord[];
  /** The read started at the last compaction. */
  partial: boolean;
  shown: ShownRecords;
  /** The provider and model it last used. */
  model?: { provider: string; model: string };
}

/**
 * Open the stored session `id` (locked; an unknown id is a one-line KeenError). Its warnings join
 * `warnings`. On a failure after the open, the store is closed again before the error goes on.
 */
export async function openStored(opts: OpenSessionOptions, home: string, config: KeenConfig, id: string, warnings: string[]): Promise<StoredSession> {
  // Continuing needs only what the next request needs (from the last compaction on); the REPL
  // reads a bounded stretch before it to replay (below); `keen context` lists every compaction.
  const read = opts.inspect ? 'full' : 'tail';
  const opened = await SessionStore.open(home, opts.cwd, id, { env: opts.env, secrets: configSecrets(config, opts.env), read });
  const store = storeSink(opened.store);
  try {
    const records = opened.records;
    if (opened.warning) warnings.push(opened.warning);
    // A tool call that was running when Keen died gets its result now: an error saying so.
    const dangling = interruptedToolResults(buildConversation(records));
    if (dangling) {
      records.push(await store.append({ kind: 'assistant_turn', text: '', tools: dangling.tools, usage: emptyUsage(), messages: dangling.messages }));
      warnings.push(`session ${id}: ${dangling.messages.length} tool call(s) were interrupted when Keen stopped; recorded them as interrupted`);
    }
    let shown: ShownRecords = { records: [], complete: true };
    if (opts.interactive || opts.replay) {
      const replay = await opened.shown(SHOWN_BUDGET);
      shown = { records: replay.records, complete: replay.complete };
      if (replay.damaged > 0) {
        warnings.push(
          `session ${id}: ${replay.damaged} damaged ${replay.damaged === 1 ? 'line' : 'lines'} before the last compaction ${replay.damaged === 1 ? 'was' : 'were'} skipped in the replay (the history since the compaction is whole)`,
        );
      }
    }
    return { store, records, partial: opened.partial, shown, model: opened.model };
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
}

/**
 * The stored compactions `/context` lists: every one after a whole read; after a partial one (the
 * REPL read its replay backward), those whose history before them was read — from a read that
 * covers the file, all; else the ones after the first compaction in it (which starts the history
 * the later ones are measured on). Headless runs list none.
 */
export function compactionsKnown(records: SessionRecord[], partial: boolean, shown: ShownRecords, tools: readonly ToolDefinition[]): CompactionNote[] {
  if (!partial) return storedCompactions(records, tools);
  if (shown.complete) return storedCompactions(shown.records, tools);
  const first = shown.records.findIndex((r) => r.kind === 'compaction_applied');
  return first === -1 ? [] : storedCompactions(shown.records.slice(first), tools).slice(1);
}
