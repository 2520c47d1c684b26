import { randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { KeenError } from '../errors.js';

/**
 * One writer per session: a lock file holding the owner's pid and host.
 *
 * - Created atomically with a fully written temp file and `link()` (fails if the lock exists),
 *   so a reader never sees a half-written lock.
 * - A lock whose pid is dead on this host is stale and taken over. Takeover is serialised by a
 *   second guard file (`<lock>.break`) and re-checks the lock's content inside it, so two
 *   processes breaking the same stale lock cannot both win.
 * - A lock from another host cannot be checked and counts as live.
 * - Released on close and, best effort, when the process exits normally.
 */

interface LockOwner {
  pid: number;
  host: string;
  since: string;
}

const held = new Set<SessionLock>();
let exitHookInstalled = false;

export class SessionLock {
  private released = false;

  constructor(
    readonly path: string,
    private readonly content: string,
  ) {}

  /** Remove the lock if it is still ours. Safe to call twice. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    held.delete(this);
    try {
      if ((await readFile(this.path, 'utf8')) === this.content) await unlink(this.path);
    } catch {
      // already gone: nothing to release
    }
  }

  releaseSync(): void {
    if (this.released) return;
    this.released = true;
    held.delete(this);
    try {
      if (readFileSync(this.path, 'utf8') === this.content) unlinkSync(this.path);
    } catch {
      // already gone
    }
  }
}

/** Take the lock at `path` for session `sessionId`, or throw a one-line KeenError if it is held. */
export async function acquireLock(path: string, sessionId: string): Promise<SessionLock> {
  const owner: LockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  const content = `${JSON.stringify(owner)}\n`;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (await createExclusive(path, content)) {
      const lock = new SessionLock(path, content);
      held.add(lock);
      installExitHook();
      return lock;
    }
    const seen = await readText(path);
    if (seen === undefined) continue; // released between our attempt and the read: try again
    const holder = parseOwner(seen);
    if (holder && isLive(holder)) throw busy(sessionId, holder, path);
    await breakStale(path, seen);
    await sleep(5 * (attempt + 1));
  }
  throw new KeenError(`session ${sessionId} is being opened by another Keen process; try again`);
}

function busy(sessionId: string, holder: LockOwner, path: string): KeenError {
  const where = holder.host === hostname() ? `pid ${holder.pid}` : `pid ${holder.pid} on ${holder.host}`;
  return new KeenError(`session ${sessionId} is already open in another Keen process (${where}); close it first, or delete ${path} if that process is gone`);
}

/** Write `content` to a temp file, then link it into place: fails (false) if `path` exists. */
async function createExclusive(path: string, content: string): Promise<boolean> {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, content, { mode: 0o600 });
  try {
    await link(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

/** Remove the lock at `path` if it still holds exactly `seen` (a stale owner). */
async function breakStale(path: string, seen: string): Promise<void> {
  const guard = `${path}.break`;
  const guardContent = `${JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() })}\n`;
  if (!(await createExclusive(guard, guardContent))) {
    const text = await readText(guard);
    const other = text === undefined ? undefined : parseOwner(text);
    // Another process is breaking the lock right now: let it; our caller retries.
    if (other && isLive(other)) return;
    // A breaker died inside its few-microsecond window: clear its guard and retry.
    await unlink(guard).catch(() => undefined);
    return;
  }
  try {
    if ((await readText(path)) === seen) await unlink(path).catch(() => undefined);
  } finally {
    await unlink(guard).catch(() => undefined);
  }
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockOwner>;
    if (typeof v.pid === 'number' && Number.isInteger(v.pid) && v.pid > 0 && typeof v.host === 'string') {
      return { pid: v.pid, host: v.host, since: String(v.since ?? '') };
    }
  } catch {
    // unreadable: not written by a live Keen (locks appear fully written), so stale
  }
  return undefined;
}

/** True if the owner may still be running. Owners on other hosts cannot be checked: live. */
function isLive(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return true;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const lock of [...held]) lock.releaseSync();
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
