import { createHash } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { manifestSchema, type Manifest } from './manifest.js';

/** The SHA-256 of a file's bytes, or null when it does not exist. */
export async function fileHash(p: string): Promise<string | null> {
  try {
    return createHash('sha256')
      .update(await readFile(p))
      .digest('hex');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Write `data` to `file` durably: a temp file, fsync, rename. */
export async function writeDurably(file: string, data: string | Buffer, mode = 0o600): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  const fh = await open(tmp, 'w', mode);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, file);
}

/**
 * The file checkpoints of one session: before a tool first changes a file in a turn, its previous
 * content (or its absence) is kept on disk, and after the change the new content's hash, so an undo
 * can restore it byte for byte and notice a change made behind Keen's back.
 */
export class FileCheckpoints {
  private turn: number | undefined;
  private manifest: Manifest | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly dir: string) {}

  /** A new turn starts (its user message has `turnSeq` in the transcript). */
  beginTurn(turnSeq: number): void {
    this.turn = turnSeq;
    this.manifest = undefined;
  }

  /**
   * Keep `real`'s current state unless this turn already kept it. Durable before it resolves.
   * `roots`: the call's workspace roots, recorded so an undo writes only inside them.
   */
  before(real: string, roots: readonly string[] = []): Promise<void> {
    return this.record(real, roots, async () => {
      const info = await stat(real).catch(() => null);
      return info?.isFile() ? { data: await readFile(real), mode: info.mode & 0o7777 } : null;
    });
  }

  /** Whether this turn already kept `real`. */
  has(real: string): boolean {
    return this.turn !== undefined && this.manifest?.turn_seq === this.turn && this.manifest.files.some((f) => f.path === real);
  }

  /** Whether a turn is running (a user message started it). */
  get active(): boolean {
    return this.turn !== undefined;
  }

  /**
   * Keep a state of `real` seen earlier (a bash command already changed it): its bytes and mode,
   * or null when it did not exist. No-op when this turn kept it already.
   */
  keep(real: string, before: { data: Buffer; mode: number } | null, roots: readonly string[] = []): Promise<void> {
    return this.record(real, roots, async () => before);
  }

  /** Keep what `read` gives as `real`'s state before this turn, unless the turn kept it already. */
  private record(real: string, roots: readonly string[], read: () => Promise<{ data: Buffer; mode: number } | null>): Promise<void> {
    return this.serial(async () => {
      if (this.turn === undefined) return;
      const m = await this.current();
      if (m.files.some((f) => f.path === real)) return;
      addRoots(m, roots);
      const dir = this.turnDir(m.turn_seq);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const state = await read();
      let entry: Manifest['files'][number]['before'] = null;
      if (state) {
        const blob = `${m.files.length + 1}.bin`;
        await writeDurably(join(dir, blob), state.data);
        entry = { blob, mode: state.mode };
      }
      m.files.push({ path: real, before: entry });
      await this.save(m);
    });
  }

  /** Record what Keen left at `real` after a change that succeeded. */
  after(real: string): Promise<void> {
    return this.serial(async () => {
      const m = this.manifest;
      const entry = m?.files.find((f) => f.path === real);
      if (!m || !entry) return;
      entry.after = await fileHash(real);
      await this.save(m);
    });
  }

  private async current(): Promise<Manifest> {
    if (this.manifest && this.manifest.turn_seq === this.turn) return this.manifest;
    const loaded = await readManifest(this.dir, this.turn!);
    this.manifest = loaded ?? { turn_seq: this.turn!, files: [] };
    return this.manifest;
  }

  private turnDir(turnSeq: number): string {
    return join(this.dir, String(turnSeq));
  }

  private save(m: Manifest): Promise<void> {
    return writeDurably(join(this.turnDir(m.turn_seq), 'manifest.json'), `${JSON.stringify(m)}\n`);
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

function addRoots(m: Manifest, roots: readonly string[]): void {
  const missing = roots.filter((r) => !(m.roots ?? []).includes(r));
  if (missing.length) m.roots = [...(m.roots ?? []), ...missing];
}

/** One turn's manifest, or undefined when it has none (or it cannot be read). */
export async function readManifest(dir: string, turnSeq: number): Promise<Manifest | undefined> {
  try {
    const parsed = manifestSchema().safeParse(JSON.parse(await readFile(join(dir, String(turnSeq), 'manifest.json'), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Every turn's manifest in `dir`, oldest first. */
export async function listManifests(dir: string): Promise<Manifest[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const seqs = names
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .sort((a, b) => a - b);
  const out: Manifest[] = [];
  for (const seq of seqs) {
    const m = await readManifest(dir, seq);
    if (m) out.push(m);
  }
  return out;
}

/** Mark `turnSeqs` undone (after the restore succeeded). */
export async function markUndone(dir: string, manifests: readonly Manifest[]): Promise<void> {
  for (const m of manifests) {
    await writeDurably(join(dir, String(m.turn_seq), 'manifest.json'), `${JSON.stringify({ ...m, undone: true })}\n`);
  }
}
