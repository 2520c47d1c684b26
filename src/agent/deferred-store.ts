import type { NewRecord, SessionRecord } from '../transcript/records.js';
import type { SessionStore } from '../transcript/store.js';

/** What a live session writes through: the store, or a new session's deferred one. */
export interface SessionSink {
  readonly id: string;
  /** The session's folder and transcript file (known before a deferred session exists on disk). */
  readonly dir: string;
  readonly path: string;
  /** True once anything is on disk (always, for a stored session). */
  readonly persisted: boolean;
  /** Replace the credentials the session knows of in `text` (error lines). */
  redactText(text: string): string;
  append(record: NewRecord): Promise<SessionRecord>;
  appendBatch(records: readonly NewRecord[]): Promise<SessionRecord[]>;
  close(): Promise<void>;
}

/** A stored session's store, as a sink. */
export function storeSink(store: SessionStore): SessionSink {
  return {
    id: store.id,
    dir: store.dir,
    path: store.path,
    persisted: true,
    redactText: (text) => store.redactText(text),
    append: (r) => store.append(r),
    appendBatch: (rs) => store.appendBatch(rs),
    close: () => store.close(),
  };
}

/**
 * A new session that does not exist on disk until its first record is written: a run that fails
 * before the model answers (no key, no region, a refused model) leaves no session behind for
 * `--continue` to pick up. The id is fixed up front so it can be shown before anything is saved.
 */
export class DeferredSessionStore implements SessionSink {
  private real?: Promise<SessionStore>;
  private closed = false;

  constructor(
    readonly id: string,
    readonly dir: string,
    readonly path: string,
    private readonly create: (id: string) => Promise<SessionStore>,
    private readonly redact: (text: string) => string,
  ) {}

  redactText(text: string): string {
    return this.redact(text);
  }

  get persisted(): boolean {
    return this.real !== undefined;
  }

  private store(): Promise<SessionStore> {
    if (!this.real) {
      const created = this.create(this.id);
      this.real = created;
      // A failed creation (disk full, permissions) may be retried by the next append.
      created.catch(() => {
        if (this.real === created) this.real = undefined;
      });
    }
    return this.real;
  }

  async append(record: NewRecord): Promise<SessionRecord> {
    if (this.closed) throw new Error(`session ${this.id} is closed; nothing was written`);
    return (await this.store()).append(record);
  }

  async appendBatch(records: readonly NewRecord[]): Promise<SessionRecord[]> {
    if (this.closed) throw new Error(`session ${this.id} is closed; nothing was written`);
    return (await this.store()).appendBatch(records);
  }

  async close(): Promise<void> {
    this.closed = true;
    const real = await this.real?.catch(() => undefined);
    await real?.close();
  }
}
