import type { FileEntry, Manifest } from './manifest.js';

/** One file to put back: to the blob of `turnSeq` (`before`), or removed (`before` null). */
export interface Restore {
  path: string;
  turnSeq: number;
  before: FileEntry['before'];
}

export interface UndoPlan {
  turns: number[];
  restores: Restore[];
  /** Files changed outside Keen since Keen last wrote them: the undo refuses unless forced. */
  conflicts: string[];
}

/**
 * Plan undoing `manifests` (the turns to undo, any order) given each file's current hash. Each
 * file goes back to its state before the earliest of those turns touched it; it conflicts when its
 * current content is not what the latest of them left (a change the user or another program made).
 * A change that was never confirmed (a crash mid-write) is restored without a conflict check. Pure.
 */
export function planUndo(manifests: readonly Manifest[], current: ReadonlyMap<string, string | null>, beforeHash: ReadonlyMap<string, string | null>): UndoPlan {
  const ordered = [...manifests].sort((a, b) => a.turn_seq - b.turn_seq);
  const first = new Map<string, Restore>();
  const last = new Map<string, FileEntry>();
  for (const m of ordered) {
    for (const f of m.files) {
      if (!first.has(f.path)) first.set(f.path, { path: f.path, turnSeq: m.turn_seq, before: f.before });
      last.set(f.path, f);
    }
  }
  const restores: Restore[] = [];
  const conflicts: string[] = [];
  for (const [p, restore] of first) {
    const now = current.get(p) ?? null;
    const expected = last.get(p)!.after;
    if (now === (beforeHash.get(p) ?? null)) continue; // already as it was: nothing to do
    if (expected !== undefined && now !== expected) conflicts.push(p);
    restores.push(restore);
  }
  return { turns: ordered.map((m) => m.turn_seq), restores, conflicts };
}
