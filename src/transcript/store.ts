import { mkdir, open, rm, rmdir, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { homeWriteError } from '../config/home-writable.js';
import { KeenError, errorText } from '../errors.js';
import { findSession } from './list.js';
import { acquireLock, type SessionLock } from './lock.js';
import { CORRUPT_FILE, LOCK_FILE, TRANSCRIPT_FILE, assertSessionId, newSessionId, projectDir, sessionDir } from './paths.js';
import { currentModel } from './projection.js';
import { loadTranscript, type LoadedTranscript } from './reader.js';
import { loadTranscriptTail, recordsBefore, type ShowBudget, type TailTranscript } from './tail-reader.js';
import { TRANSCRIPT_FORMAT, parseRecord, type NewRecord, type SessionRecord } from './records.js';
import { redactedJsonLine, redactText, secretValues } from './redact.js';

/**
 * The durable, append-only transcript of one session.
 *
 * Guarantees (see docs/sessions.md):
 * - `append` and `appendBatch` cost O(records written): one `write()` on an O_APPEND descriptor
 *   plus one `fdatasync`; the transcript is never rewritten.
 * - A call resolves only once its bytes are on disk (fdatasync), so "durable before visible":
 *   callers change in-memory state after the promise resolves. On failure nothing was written
 *   (a partial write is truncated away) and the promise rejects with a one-line KeenError.
 * - `appendBatch` is atomic: its records carry a batch marker and a reader accepts a batch only
 *   when all of it is present, so a crash at any instant leaves all of it or none of it.
 * - Seqs are consecutive from 1 and continue after the highest valid seq on open.
 * - Calls are serialised in call order; one writer per session (a lock file), files 0600,
 *   directories 0700, secrets from the environment replaced by `[REDACTED]` before writing.
 */

export interface StoreOptions {
  /** Further secret values to redact (e.g. API keys read from config). */
  secrets?: readonly string[];
  /** Environment whose secret-looking variables are redacted. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** fdatasync after every write (default true). Off only for benchmarks of the write path itself. */
  fsync?: boolean;
  /** The file-system calls of the write path (default: the real ones). Fault-injection tests pass a layer that fails. */
  io?: StoreIo;
}

/**
 * The file-system calls `append`/`appendBatch` make, as a seam: the durability tests replace it
 * with a layer that throws ENOSPC or EIO at a chosen call, on a real file.
 */
export interface StoreIo {
  write(fh: FileHandle, bytes: Buffer, offset: number, length: number): Promise<{ bytesWritten: number }>;
  datasync(fh: FileHandle): Promise<void>;
  truncate(fh: FileHandle, size: number): Promise<void>;
}

export const NODE_STORE_IO: StoreIo = {
  write: (fh, bytes, offset, length) => fh.write(bytes, offset, length),
  datasync: (fh) => fh.datasync(),
  truncate: (fh, size) => fh.truncate(size),
};

export interface CreateSessionOptions extends StoreOptions {
  cwd: string;
  provider: string;
  model: string;
  keenVersion: string;
  /** Default: a fresh `newSessionId()`. */
  id?: string;
}

/** How `SessionStore.open` reads the transcript. */
export interface OpenOptions extends StoreOptions {
  /**
   * `full` (default): every record. `tail`: only what continuing needs — the records from the
   * batch of the last compaction on (src/transcript/tail-reader.ts); `transcript()` reads the rest.
   */
  read?: 'full' | 'tail';
}

export interface OpenedSession {
  store: SessionStore;
  /**
   * The valid records on disk when the session was opened, in seq order: all of them, or with
   * `read: 'tail'` possibly only those from the last compaction's batch on (see `partial`). Either
   * way `buildConversation(records)` is the history a full load gives.
   */
  records: SessionRecord[];
  /** True when `records` start at the last compaction's batch. */
  partial: boolean;
  /** The provider and model in effect at the end (what `currentModel` of all records gives). */
  model?: { provider: string; model: string };
  /** Every record (replay, audit): read from disk on the first call, then cached. */
  transcript(): Promise<LoadedTranscript>;
  /**
   * What a resumed REPL shows: `records`, and when they are `partial`, the records before them
   * read backward within `budget` (tail-reader.ts `recordsBefore`). `complete` when nothing was
   * left out; `damaged`: lines read there that are no valid record (a full load names them).
   * Display only.
   */
  shown(budget: ShowBudget): Promise<{ records: SessionRecord[]; complete: boolean; damaged: number }>;
  /** One line for the user if damaged lines were skipped (print it once), else undefined. */
  warning?: string;
}

export class SessionStore {
  private nextSeq: number;
  private size: number;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private broken: KeenError | undefined;
  /** The provider and model in effect: stamped on compaction records (see CompactionAppliedRecord). */
  private model: { provider: string; model: string } | undefined;

  private constructor(
    readonly id: string,
    readonly dir: string,
    private readonly fh: FileHandle,
    private readonly lock: SessionLock,
    private readonly options: StoreOptions,
    lastSeq: number,
    size: number,
  ) {
    this.nextSeq = lastSeq + 1;
    this.size = size;
  }

  get path(): string {
    return join(this.dir, TRANSCRIPT_FILE);
  }

  /** The seq of the last record written (0 before any). */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  /** Start a new session in `cwd`: creates its directory and writes `session_started`. */
  static async create(home: string, opts: CreateSessionOptions): Promise<SessionStore> {
    if (opts.id !== undefined) assertSessionId(opts.id);
    const parent = projectDir(home, opts.cwd);
    try {
      await mkdir(parent, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw homeWriteError(home, parent, err);
    }
    let id = opts.id ?? newSessionId();
    for (let attempt = 0; ; attempt++) {
      try {
        await mkdir(sessionDir(home, opts.cwd, id), { mode: 0o700 });
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw writeError(id, err);
        if (opts.id !== undefined || attempt >= 5) throw new KeenError(`session ${id} already exists`);
        id = newSessionId();
      }
    }
    const dir = sessionDir(home, opts.cwd, id);
    let lock: SessionLock;
    try {
      lock = await acquireLock(join(dir, LOCK_FILE), id);
    } catch (err) {
      await rmdir(dir).catch(() => undefined);
      // A full or read-only KEEN_HOME fails here first: name it rather than a temp file.
      throw err instanceof KeenError ? err : homeWriteError(home, dir, err);
    }
    let fh: FileHandle | undefined;
    try {
      fh = await open(join(dir, TRANSCRIPT_FILE), 'ax', 0o600);
      const store = new SessionStore(id, dir, fh, lock, opts, 0, 0);
      store.model = { provider: opts.provider, model: opts.model };
      // The new directory entries and the first record are made durable together; the session is
      // returned (and anything written to it acknowledged) only once all three syncs are done.
      await Promise.all([
        syncDir(dir),
        syncDir(parent),
        store.append({
          kind: 'session_started',
          format: TRANSCRIPT_FORMAT,
          session_id: id,
          cwd: opts.cwd,
          provider: opts.provider,
          model: opts.model,
          keen_version: opts.keenVersion,
        }),
      ]);
      return store;
    } catch (err) {
      await fh?.close().catch(() => undefined);
      // Leave no empty session behind: the file and directory are ours and hold nothing yet.
      if (fh && (await stat(join(dir, TRANSCRIPT_FILE)).catch(() => undefined))?.size === 0) {
        await rm(join(dir, TRANSCRIPT_FILE), { force: true }).catch(() => undefined);
      }
      await lock.release();
      await rmdir(dir).catch(() => undefined);
      throw err instanceof KeenError ? err : writeError(id, err);
    }
  }

  /**
   * Open an existing session of `cwd` for appending: takes the lock, loads the records, and moves
   * a damaged tail (torn line, incomplete batch) into `transcript_events.jsonl.corrupt` so the
   * next append starts on a clean line. Throws a one-line KeenError for a malformed or unknown
   * id, or when another live process has the session open.
   */
  static async open(home: string, cwd: string, id: string, opts: OpenOptions = {}): Promise<OpenedSession> {
    const dir = sessionDir(home, cwd, id);
    const path = join(dir, TRANSCRIPT_FILE);
    try {
      await stat(path);
    } catch {
      await findSession(home, cwd, id); // throws the precise one-line error (unknown, or another directory's)
      throw new KeenError(`no session ${id} in ${cwd}; run \`keen sessions\` to list sessions`);
    }
    const lock = await acquireLock(join(dir, LOCK_FILE), id);
    let fh: FileHandle | undefined;
    try {
      const loaded: TailTranscript =
        opts.read === 'tail' ? await loadTranscriptTail(path) : await loadTranscript(path).then((l) => ({ ...l, partial: false, model: currentModel(l.records), start: 0 }));
      const started = loaded.records[0];
      if (!loaded.partial && started?.kind === 'session_started' && started.format > TRANSCRIPT_FORMAT) {
        throw new KeenError(`session ${id} was written by a newer Keen (transcript format ${started.format}); upgrade Keen to resume it`);
      }
      fh = await open(path, 'a', 0o600);
      const size = await repairTail(fh, dir, loaded);
      const lastSeq = loaded.records.length > 0 ? loaded.records[loaded.records.length - 1].seq : 0;
      const store = new SessionStore(id, dir, fh, lock, opts, lastSeq, size);
      store.model = loaded.model;
      const moved = loaded.tailStart < loaded.size ? `; the damaged bytes were moved to ${join(dir, CORRUPT_FILE)}` : '';
      const warning = loaded.warning === undefined ? undefined : `${loaded.warning}${moved}`;
      let whole: Promise<LoadedTranscript> | undefined = loaded.partial ? undefined : Promise.resolve(loaded);
      // Read after the repair above, so it sees the file as the store will append to it.
      const transcript = () => (whole ??= loadTranscript(path));
      const records = loaded.records;
      const shown = async (budget: ShowBudget) => {
        if (!loaded.partial) return { records, complete: true, damaged: 0 };
        const before = await recordsBefore(path, loaded.start, budget);
        return { records: [...before.records, ...records], complete: before.complete, damaged: before.damaged };
      };
      return { store, records, partial: loaded.partial, model: loaded.model, warning, transcript, shown };
    } catch (err) {
      await fh?.close().catch(() => undefined);
      await lock.release();
      throw err instanceof KeenError ? err : writeError(id, err, 'open');
    }
  }

  /** Append one record. Resolves with it (seq and ts assigned) once it is on disk. */
  async append(record: NewRecord): Promise<SessionRecord> {
    const [written] = await this.write([record], false);
    return written;
  }

  /**
   * Append records atomically with consecutive seqs: after a crash at any instant the transcript
   * holds all of them or none. Two or more records carry a `batch` marker; a single record needs
   * none (one line is already all-or-nothing).
   */
  appendBatch(records: readonly NewRecord[]): Promise<SessionRecord[]> {
    return this.write(records, true);
  }

  /** `text` with the secrets this store redacts (and known credential formats) replaced: for error lines and JSON output. */
  redactText(text: string): string {
    return redactText(text, secretValues(this.options.env ?? process.env, this.options.secrets ?? []));
  }

  /** Wait for pending writes, close the file and release the lock. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue;
    await this.fh.close().catch(() => undefined);
    await this.lock.release();
  }

  private write(input: readonly NewRecord[], batch: boolean): Promise<SessionRecord[]> {
    if (this.closed) return Promise.reject(new KeenError(`session ${this.id} is closed; nothing was written`));
    const run = this.queue.then(() => this.writeNow(input, batch));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async writeNow(input: readonly NewRecord[], batch: boolean): Promise<SessionRecord[]> {
    if (this.broken) throw this.broken;
    if (input.length === 0) return [];
    const first = this.nextSeq;
    const ts = new Date().toISOString();
    const marker = batch && input.length > 1 ? { first_seq: first, count: input.length } : undefined;
    const records = input.map((r, i) => envelope(this.stamp(r), first + i, ts, marker));
    for (const r of records) {
      const checked = parseRecord(r, true);
      if (!checked.success) {
        const issue = checked.error.issues[0];
        throw new KeenError(`session ${this.id}: refusing to write an invalid ${r.kind} record (${issue?.path.join('.') || 'record'}: ${issue?.message ?? 'invalid'})`);
      }
    }
    const secrets = secretValues(this.options.env ?? process.env, this.options.secrets ?? []);
    const bytes = Buffer.from(records.map((r) => redactedJsonLine(r, secrets)).join(''), 'utf8');
    const before = this.size;
    const io = this.options.io ?? NODE_STORE_IO;
    try {
      for (let off = 0; off < bytes.length; ) {
        const { bytesWritten } = await io.write(this.fh, bytes, off, bytes.length - off);
        off += bytesWritten;
      }
      if (this.options.fsync !== false) await io.datasync(this.fh);
    } catch (err) {
      try {
        await io.truncate(this.fh, before);
      } catch {
        this.broken = new KeenError(`session ${this.id}: the transcript is in an unknown state after a failed write (${errorText(err)}); reopen the session`);
      }
      throw writeError(this.id, err);
    }
    this.size = before + bytes.length;
    this.nextSeq = first + records.length;
    for (const r of records) if (r.kind === 'model_changed') this.model = { provider: r.provider, model: r.model };
    return records;
  }

  /** A compaction record gains the model in effect, so a later open can start at it. */
  private stamp(r: NewRecord): NewRecord {
    if (r.kind !== 'compaction_applied' || !this.model || (r.provider !== undefined && r.model !== undefined)) return r;
    return { ...r, provider: this.model.provider, model: this.model.model };
  }
}

/** Build the on-disk shape: envelope first (seq, kind, ts, batch), then the payload. */
function envelope(r: NewRecord, seq: number, ts: string, batch: SessionRecord['batch']): SessionRecord {
  const { kind, seq: _s, ts: _t, batch: _b, ...payload } = r as NewRecord & Partial<SessionRecord>;
  return (batch ? { seq, kind, ts, batch, ...payload } : { seq, kind, ts, ...payload }) as SessionRecord;
}

/**
 * Move `[tailStart, size)` into the side file (appended, fsynced), then truncate the transcript
 * to `tailStart`. A crash between the two steps leaves the bytes in both places, never in none.
 * Returns the transcript's size afterwards.
 */
async function repairTail(fh: FileHandle, dir: string, loaded: LoadedTranscript): Promise<number> {
  let size = loaded.size;
  if (loaded.tailStart < loaded.size) {
    const tail = Buffer.alloc(loaded.size - loaded.tailStart);
    const src = await open(loaded.path, 'r');
    try {
      await src.read(tail, 0, tail.length, loaded.tailStart);
    } finally {
      await src.close();
    }
    // Blank lines carry no data; anything else is kept in the side file.
    if (!tail.every((b) => b === 0x0a || b === 0x0d || b === 0x20 || b === 0x09)) {
      const side = await open(join(dir, CORRUPT_FILE), 'a', 0o600);
      try {
        await side.write(tail[tail.length - 1] === 0x0a ? tail : Buffer.concat([tail, Buffer.from('\n')]));
        await side.sync();
      } finally {
        await side.close();
      }
    }
    await fh.truncate(loaded.tailStart);
    size = loaded.tailStart;
  }
  if (loaded.missingNewline) {
    await fh.write('\n');
    size += 1;
  }
  if (size !== loaded.size) await fh.datasync();
  return size;
}

function writeError(id: string, err: unknown, verb: 'write' | 'open' = 'write'): KeenError {
  return new KeenError(`session ${id}: could not ${verb} the transcript (${errorText(err)})`);
}

async function syncDir(dir: string): Promise<void> {
  try {
    const h = await open(dir, 'r');
    try {
      await h.sync();
    } finally {
      await h.close();
    }
  } catch {
    // not every platform can fsync a directory; the data itself is still fsynced
  }
}
