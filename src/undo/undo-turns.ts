import { createHash } from 'node:crypto';
import { readFile, readlink } from 'node:fs/promises';
import { join, relative, isAbsolute, sep } from 'node:path';
import { KeenError } from '../errors.js';
import type { NewRecord } from '../transcript/records.js';
import { applyRestores } from './apply-undo.js';
import { isLink, placeRestore, realRoots } from './confine.js';
import { fileHash, listManifests, markUndone } from './file-checkpoints.js';
import type { Manifest } from './manifest.js';
import { planUndo } from './undo-plan.js';

/** The checkpoints directory of a session directory. */
export function checkpointsDir(sessionDir: string): string {
  return join(sessionDir, 'checkpoints');
}

export interface UndoRequest {
  /** The session's checkpoints directory. */
  dir: string;
  /** Where the `undo` record goes (the session store). */
  sink: { append(record: NewRecord): Promise<unknown> };
  /** Shown paths are relative to this. */
  cwd: string;
  /** Undo the last `turns` turns that changed files (default 1). */
  turns?: number;
  /** Or: undo every turn from this user-message seq on (`/rewind`). */
  fromSeq?: number;
  /** Rewind the conversation too (to before `fromSeq`). */
  conversation?: boolean;
  /** Overwrite files changed outside Keen since. */
  force?: boolean;
  /** More workspace roots (besides `cwd` and those the checkpoints recorded) an undo may write in. */
  roots?: readonly string[];
}

export interface UndoOutcome {
  turns: number[];
  files: { path: string; shown: string; action: 'restored' | 'removed' }[];
}

/** The turns that changed files and were not undone yet, oldest first. */
export async function undoableTurns(dir: string): Promise<Manifest[]> {
  return (await listManifests(dir)).filter((m) => !m.undone && m.files.length > 0);
}

function shown(cwd: string, p: string): string {
  const rel = relative(cwd, p);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : p;
}

/** The state at `target` without following a symlink there: a link hashes as its target text. */
async function leafHash(target: string): Promise<string | null> {
  if (await isLink(target)) return `symlink:${await readlink(target)}`;
  return fileHash(target);
}

/**
 * Where each file of `chosen` lands now (parents resolved); throws a KeenError naming every file
 * that would land outside the workspace roots, before anything is written (`--force` or not).
 */
async function placeAll(req: UndoRequest, chosen: readonly Manifest[]): Promise<Map<string, string>> {
  const roots = await realRoots([req.cwd, ...(req.roots ?? []), ...chosen.flatMap((m) => m.roots ?? [])]);
  const places = new Map<string, string>();
  const outside: string[] = [];
  for (const m of chosen) {
    for (const f of m.files) {
      if (places.has(f.path)) continue;
      const placed = await placeRestore(f.path, roots);
      if ('outside' in placed) outside.push(`${shown(req.cwd, f.path)} (now ${placed.outside})`);
      places.set(f.path, 'target' in placed ? placed.target : placed.outside);
    }
  }
  if (outside.length > 0) {
    throw new KeenError(`refusing to undo: ${outside.join(', ')} would be written outside the workspace through a symlink; nothing was changed`);
  }
  return places;
}

/**
 * Undo file changes: plan, refuse with one line (changing nothing) when a file would land outside
 * the workspace now (a folder on its way became a symlink; `force` does not override this) or was
 * changed outside Keen since, else restore every file of the chosen turns atomically — each at
 * its real place, a symlink at the file itself replaced, never followed — mark them undone and
 * append an `undo` record. Throws KeenError for nothing to undo, a path outside, or a conflict.
 */
export async function undoTurns(req: UndoRequest): Promise<UndoOutcome> {
  const all = await undoableTurns(req.dir);
  const chosen = req.fromSeq !== undefined ? all.filter((m) => m.turn_seq >= req.fromSeq!) : all.slice(-(req.turns ?? 1));
  if (chosen.length === 0 && !req.conversation) throw new KeenError('nothing to undo: no earlier turn of this session changed files');
  const places = await placeAll(req, chosen);
  const current = new Map<string, string | null>();
  const before = new Map<string, string | null>();
  for (const m of chosen) {
    for (const f of m.files) {
      if (!current.has(f.path)) current.set(f.path, await leafHash(places.get(f.path)!));
      if (!before.has(f.path)) {
        before.set(
          f.path,
          f.before
            ? createHash('sha256')
                .update(await readFile(join(req.dir, String(m.turn_seq), f.before.blob)))
                .digest('hex')
            : null,
        );
      }
    }
  }
  const plan = planUndo(chosen, current, before);
  if (plan.conflicts.length > 0 && !req.force) {
    const names = plan.conflicts.map((p) => shown(req.cwd, p)).join(', ');
    throw new KeenError(
      `refusing to undo: ${names} changed outside Keen since Keen wrote ${plan.conflicts.length === 1 ? 'it' : 'them'}; nothing was changed (use --force to overwrite)`,
    );
  }
  await applyRestores(
    req.dir,
    plan.restores.map((r) => ({ ...r, path: places.get(r.path)! })),
  );
  await markUndone(req.dir, chosen);
  const record: NewRecord = { kind: 'undo', turn_seqs: plan.turns, files: plan.restores.map((r) => r.path) };
  if (req.conversation && req.fromSeq !== undefined) record.conversation_to_seq = req.fromSeq;
  await req.sink.append(record);
  return {
    turns: plan.turns,
    files: plan.restores.map((r) => ({ path: r.path, shown: shown(req.cwd, r.path), action: r.before ? 'restored' : 'removed' })),
  };
}

/** One line per undo, e.g. `Undid the file changes of 1 turn: restored a.txt; removed new.txt (created by Keen).` */
export function undoSummary(outcome: UndoOutcome): string {
  const turns = outcome.turns.length === 1 ? 'turn' : 'turns';
  const restored = outcome.files.filter((f) => f.action === 'restored').map((f) => f.shown);
  const removed = outcome.files.filter((f) => f.action === 'removed').map((f) => f.shown);
  const parts = [...(restored.length ? [`restored ${restored.join(', ')}`] : []), ...(removed.length ? [`removed ${removed.join(', ')} (created by Keen)`] : [])];
  if (outcome.turns.length === 0) return 'Rewound the conversation; no files to restore.';
  if (parts.length === 0) {
    const one = outcome.turns.length === 1;
    return `Nothing to undo: the files ${turns} ${outcome.turns.join(', ')} changed are already as they were before ${one ? 'it' : 'them'}.`;
  }
  return `Undid the file changes of ${outcome.turns.length} ${turns}: ${parts.join('; ')}.`;
}
