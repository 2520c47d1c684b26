/**
 * ↑/↓ input history, persisted per project under `$KEEN_HOME/history/` as JSON Lines (one JSON
 * string per entry, so multi-line inputs survive). Loading and appending never throw: history is
 * a convenience, a broken file only means an empty history.
 */
import { appendFile, chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import { inputHistoryDir } from '../../config/paths.js';
import { projectDirName } from '../../transcript/paths.js';
import { redactText, secretValues } from '../../transcript/redact.js';
import { HISTORY_LIMIT } from './editor.js';

export function historyFile(home: string, cwd: string): string {
  return join(inputHistoryDir(home), `${projectDirName(cwd)}.jsonl`);
}

export class InputHistory {
  constructor(
    readonly file: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /** The newest entries, oldest first (at most HISTORY_LIMIT). Rewrites a file grown past twice that. */
  async load(): Promise<string[]> {
    let raw: string;
    try {
      raw = await readFile(this.file, 'utf8');
    } catch {
      return [];
    }
    const entries: string[] = [];
    for (const line of raw.split('\n')) {
      if (!line) continue;
      try {
        const v: unknown = JSON.parse(line);
        if (typeof v === 'string' && v.trim()) entries.push(v);
      } catch {
        // a torn last line from a crash: skip it
      }
    }
    const kept = entries.slice(-HISTORY_LIMIT);
    if (entries.length > 2 * HISTORY_LIMIT) {
      const tmp = `${this.file}.tmp`;
      await writeFile(tmp, kept.map((e) => `${JSON.stringify(e)}\n`).join(''), { mode: 0o600 })
        .then(() => rename(tmp, this.file))
        .catch(() => undefined);
    }
    return kept;
  }

  async append(entry: string): Promise<void> {
    if (!entry.trim()) return;
    try {
      // Input may hold a pasted key: the same redaction as transcripts, and owner-only modes.
      const dir = dirname(this.file);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await chmod(dir, 0o700);
      await appendFile(this.file, `${JSON.stringify(redactText(entry, secretValues(this.env)))}\n`, { mode: 0o600 });
      await chmod(this.file, 0o600);
    } catch {
      // history is best effort
    }
  }
}
