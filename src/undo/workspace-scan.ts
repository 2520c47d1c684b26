import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RG_COMMON, runRipgrep } from '../tools/ripgrep.js';

/** Limits of the before-scan that lets undo restore files a bash command changed. */
export const SCAN_MAX_FILES = 5000;
export const SCAN_MAX_BYTES = 32 * 1024 * 1024;
export const SCAN_MAX_FILE_BYTES = 1024 * 1024;

export interface FileState {
  size: number;
  mtimeMs: number;
  ino: number;
  mode: number;
  /** The bytes, when kept (small enough, within the budget, wanted). */
  content?: Buffer;
}

/**
 * The workspace's tracked and untracked files (ripgrep's listing: .gitignore respected, `.git`
 * skipped, hidden files included), with their stat and, for files `wantContent` names and the
 * budget allows, their bytes. Undefined when the workspace has more than SCAN_MAX_FILES files.
 */
export async function scanWorkspace(cwd: string, signal: AbortSignal, wantContent: (abs: string) => boolean): Promise<Map<string, FileState> | undefined> {
  const rels: string[] = [];
  let tooMany = false;
  await runRipgrep([...RG_COMMON, '--files', '.'], {
    cwd,
    signal,
    onLine: (line) => {
      if (rels.length >= SCAN_MAX_FILES) tooMany = true;
      else if (line !== '') rels.push(line.startsWith('./') ? line.slice(2) : line);
    },
  });
  if (tooMany) return undefined;
  const out = new Map<string, FileState>();
  let budget = SCAN_MAX_BYTES;
  for (const rel of rels) {
    const abs = join(cwd, rel);
    const info = await lstat(abs).catch(() => null);
    if (!info?.isFile()) continue;
    const state: FileState = { size: info.size, mtimeMs: info.mtimeMs, ino: info.ino, mode: info.mode & 0o7777 };
    if (info.size <= SCAN_MAX_FILE_BYTES && info.size <= budget && wantContent(abs)) {
      state.content = await readFile(abs).catch(() => undefined);
      if (state.content) budget -= state.content.length;
    }
    out.set(abs, state);
  }
  return out;
}

export interface ScanChange {
  path: string;
  /** The state before the command (undefined: the file is new). */
  before?: FileState;
}

/** Files created, changed or removed between two scans. Pure. */
export function scanChanges(before: ReadonlyMap<string, FileState>, after: ReadonlyMap<string, FileState>): ScanChange[] {
  const out: ScanChange[] = [];
  for (const [p, b] of before) {
    const a = after.get(p);
    if (!a || a.size !== b.size || a.mtimeMs !== b.mtimeMs || a.ino !== b.ino) out.push({ path: p, before: b });
  }
  for (const p of after.keys()) if (!before.has(p)) out.push({ path: p });
  return out;
}
