import { type FileHandle, mkdir, open, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { redactSecrets } from './redact.js';

/** The folder of a session directory that holds its artifacts. */
export const ARTIFACTS_DIR = 'artifacts';

const NAME_RE = /^(\d+)\.txt$/;

/**
 * Every tool output of a session, stored once, in full: `artifacts/N.txt` (0600, folder 0700)
 * in the session directory, numbered 1, 2, 3 … per session and continued on resume. Secrets are
 * redacted as in the transcript. Pruning replaces old outputs in the history by `artifact#N`
 * handles; the recall tool reads them back from here.
 */
export class ArtifactStore {
  private constructor(
    readonly dir: string,
    private next: number,
    private readonly secrets: readonly string[],
  ) {}

  private made = false;

  /**
   * Opens the artifact folder of `sessionDir`. Nothing is created until the first output is
   * stored: a new session must not exist on disk before its first record. `fresh`: the session
   * is new (its folder is created with its first record and cannot hold artifacts yet), so the
   * folder is not listed — one file-system round trip less before a new session's first request.
   */
  static async open(sessionDir: string, secrets: readonly string[], opts: { fresh?: boolean } = {}): Promise<ArtifactStore> {
    const dir = join(sessionDir, ARTIFACTS_DIR);
    let max = 0;
    let names: string[] = [];
    try {
      if (!opts.fresh) names = await readdir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    for (const name of names) {
      const hit = NAME_RE.exec(name);
      if (hit) max = Math.max(max, Number(hit[1]));
    }
    return new ArtifactStore(dir, max + 1, secrets);
  }

  /** Store one output; resolves with its number once the bytes are written. */
  async put(content: string): Promise<number> {
    if (!this.made) {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      this.made = true;
    }
    for (;;) {
      const n = this.next++;
      let fh: FileHandle;
      try {
        fh = await open(join(this.dir, `${n}.txt`), 'wx', 0o600);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue; // never overwrite an artifact
        throw err;
      }
      try {
        await fh.writeFile(redactSecrets(content, this.secrets), 'utf8');
      } finally {
        await fh.close();
      }
      return n;
    }
  }

  /** The stored text of `artifact#n`, or undefined when there is none. */
  async get(n: number): Promise<string | undefined> {
    if (!Number.isSafeInteger(n) || n < 1) return undefined;
    try {
      return await readFile(join(this.dir, `${n}.txt`), 'utf8');
    } catch {
      return undefined;
    }
  }
}
