import { type ChildProcessByStdio, execFileSync, spawn } from 'node:child_process';
import { statSync, readFileSync } from 'node:fs';
import { join, resolve as pathResolve } from 'node:path';
import { childEnv } from '../security/child-env.js';
import type { Readable } from 'node:stream';
import { repositoryTop, safeGit, safeGitSync } from '../tools/git/safe-git.js';
import { monotonicMs } from './clock.js';

/**
 * The `git status` of the system prompt, run so that it never stalls a turn: in a child process
 * (the event loop stays free), capped in time and in output, and cut with a note that says so.
 * A session starts it when it opens and refreshes it before each turn (`GitStatusCache`). A large
 * repository (by its index size) is asked without untracked files, so that the status arrives
 * within the turn's wait; a run that still times out turns untracked files off for the session,
 * and a second one stops git status for the session.
 */

/** git is stopped after this long (a repository of 100,000 files can take seconds). */
export const GIT_STATUS_TIMEOUT_MS = 2000;
/** At most this many bytes of output are read; git is stopped beyond them. */
export const GIT_STATUS_MAX_BYTES = 16 << 10;
/** At most this many lines go into the prompt. */
export const GIT_STATUS_MAX_LINES = 40;
/** A turn waits at most this long for a refresh in flight, then uses the last finished one. */
export const GIT_STATUS_TURN_WAIT_MS = 250;
/**
 * An index this big (some 50,000 tracked files) marks a repository where listing untracked files
 * would not finish within a turn's wait: there git status runs with `--untracked-files=no`.
 */
export const GIT_STATUS_LARGE_INDEX_BYTES = 4 << 20;

/** What one run produced. */
export interface GitStatusRun {
  /** The output read (possibly cut). Undefined when git is missing or this is no repository. */
  output?: string;
  /** git was stopped at the output cap. */
  cut?: boolean;
  /** git was stopped at the time cap (`output` then holds what it printed before). */
  timedOut?: boolean;
  /** Untracked files were not listed (`--untracked-files=no`). */
  untrackedOff?: boolean;
  /** git was not run, and why (its config could not be read in full: `safeGit`). */
  refused?: string;
}

export interface GitStatusOptions {
  timeoutMs?: number;
  maxBytes?: number;
  /** The command run, for tests of the caps (default: git, made safe by `safeGit`). */
  command?: { file: string; args: string[] };
  /** List untracked files (default: unless the index is at least `largeIndexBytes`). */
  untracked?: boolean;
  /** Default GIT_STATUS_LARGE_INDEX_BYTES. */
  largeIndexBytes?: number;
}

/**
 * A dirty submodule is not looked into: that would start a git in it, under a config that was not
 * enumerated (its own filters would run).
 */
const ARGS = ['--no-pager', 'status', '--short', '--branch', '--ignore-submodules=dirty'];

/** The prompt text of a run: at most GIT_STATUS_MAX_LINES lines, and a line saying what was cut. Pure. */
export function formatGitStatus(run: GitStatusRun, timeoutMs = GIT_STATUS_TIMEOUT_MS): string | undefined {
  if (run.refused) return `… git status is not run: ${run.refused}`;
  if (run.output === undefined) return undefined;
  let lines = run.output.replace(/\n$/, '').split('\n');
  // A cut run's last line may be partial: drop it.
  if ((run.cut || run.timedOut) && !run.output.endsWith('\n')) lines = lines.slice(0, -1);
  lines = lines.filter((l) => l !== '');
  const more = lines.length > GIT_STATUS_MAX_LINES ? lines.length - GIT_STATUS_MAX_LINES : 0;
  const shown = lines.slice(0, GIT_STATUS_MAX_LINES);
  if (run.timedOut) shown.push(`… git status did not finish within ${timeoutMs / 1000} s; ${shown.length ? 'the list is incomplete' : 'status unknown'}`);
  else if (run.cut) shown.push(`… more changes not shown (output cut at ${GIT_STATUS_MAX_BYTES >> 10} KB)`);
  else if (more > 0) shown.push(`… ${more} more`);
  if (run.untrackedOff && !run.timedOut) shown.push('… untracked files not listed (a large repository)');
  return shown.join('\n');
}

/**
 * Whether git could find a repository from `cwd`: a `.git` (folder, or a worktree's file) in it
 * or a folder above, or `GIT_DIR` / `GIT_WORK_TREE` naming one. When not, `git status` can only
 * fail ("not a git repository"), and starting it would cost the request a spawn for
 * nothing. The walk may find more than git would (across file systems, past a ceiling): then git
 * runs and decides, as before.
 */
export function mayBeInRepository(cwd: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.GIT_DIR || env.GIT_WORK_TREE) || repositoryTop(cwd) !== undefined;
}

/** The size of the index of the repository git would find from `cwd`, if it has one. */
export function indexBytes(cwd: string): number | undefined {
  const top = repositoryTop(cwd);
  if (!top) return undefined;
  try {
    const dotGit = join(top, '.git');
    let gitDir = dotGit;
    if (statSync(dotGit).isFile()) {
      const target = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
      if (!target) return undefined;
      gitDir = pathResolve(top, target);
    }
    return statSync(join(gitDir, 'index')).size;
  } catch {
    return undefined;
  }
}

/** Run git status in a child process, capped; resolves when it ended or was stopped. Never rejects. */
export function readGitStatus(cwd: string, opts: GitStatusOptions = {}): { done: Promise<GitStatusRun>; stop: () => void } {
  const timeoutMs = opts.timeoutMs ?? GIT_STATUS_TIMEOUT_MS;
  const maxBytes = opts.maxBytes ?? GIT_STATUS_MAX_BYTES;
  // Outside any repository git has nothing to say: the same result as its failing run, at once.
  if (!opts.command && !mayBeInRepository(cwd)) return { done: Promise.resolve({}), stop: () => undefined };
  const untracked = opts.untracked ?? (indexBytes(cwd) ?? 0) < (opts.largeIndexBytes ?? GIT_STATUS_LARGE_INDEX_BYTES);
  const untrackedOff = untracked ? {} : { untrackedOff: true };
  let stopped = false;
  let stop = () => {
    stopped = true;
  };
  const run = (launch: { file: string; args: string[]; env: NodeJS.ProcessEnv }, resolve: (r: GitStatusRun) => void) => {
    let child: ChildProcessByStdio<null, Readable, null>;
    try {
      // A session of its own, sandbox or not: git and what it starts have no controlling terminal.
      child = spawn(launch.file, launch.args, { cwd, env: launch.env, stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    } catch {
      resolve({});
      return;
    }
    const chunks: Buffer[] = [];
    let bytes = 0;
    let cut = false;
    let timedOut = false;
    const kill = () => child.kill('SIGKILL');
    stop = kill;
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    timer.unref();
    // Neither the child nor its pipe keeps Keen alive at exit.
    child.unref();
    (child.stdout as unknown as { unref?: () => void }).unref?.();
    child.stdout.on('data', (chunk: Buffer) => {
      if (cut) return;
      const room = maxBytes - bytes;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      bytes += Math.min(chunk.length, room);
      if (bytes >= maxBytes) {
        cut = true;
        kill();
      }
    });
    child.on('error', () => {
      clearTimeout(timer);
      resolve({});
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const output = Buffer.concat(chunks).toString('utf8');
      if (cut || timedOut) resolve({ output, cut, timedOut: timedOut && !cut, ...untrackedOff });
      else resolve(code === 0 ? { output, ...untrackedOff } : {});
    });
  };
  const done = new Promise<GitStatusRun>((resolve) => {
    const launch = opts.command ? Promise.resolve({ ...opts.command, env: childEnv(process.env) }) : safeGit(cwd, untracked ? ARGS : [...ARGS, '--untracked-files=no']);
    launch.then(
      (l) => (stopped ? resolve({}) : 'refused' in l ? resolve({ refused: l.refused }) : run(l, resolve)),
      () => resolve({}),
    );
  });
  return { done, stop: () => stop() };
}

/**
 * The same, synchronously (for callers without a session, e.g. a one-off prompt): blocks for at
 * most the time cap.
 */
export function gitStatusSync(cwd: string): string | undefined {
  try {
    const untracked = (indexBytes(cwd) ?? 0) < GIT_STATUS_LARGE_INDEX_BYTES;
    const launch = safeGitSync(cwd, untracked ? ARGS : [...ARGS, '--untracked-files=no']);
    if ('refused' in launch) return formatGitStatus(launch);
    const out = execFileSync(launch.file, launch.args, {
      cwd,
      encoding: 'utf8',
      timeout: GIT_STATUS_TIMEOUT_MS,
      maxBuffer: GIT_STATUS_MAX_BYTES,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: launch.env,
      // Honoured by Node's sync spawn too, though its type does not name it.
      ...{ detached: true },
    });
    return formatGitStatus({ output: out, ...(untracked ? {} : { untrackedOff: true }) });
  } catch (err) {
    const e = err as { code?: string; stdout?: string; signal?: string };
    if (e.code === 'ENOBUFS' && typeof e.stdout === 'string') return formatGitStatus({ output: e.stdout, cut: true });
    if (e.code === 'ETIMEDOUT' || e.signal === 'SIGTERM') return formatGitStatus({ output: typeof e.stdout === 'string' ? e.stdout : '', timedOut: true });
    return undefined;
  }
}

/** A run started this recently and not yet shown to a turn is the next turn's status. */
export const GIT_STATUS_FRESH_MS = 1000;

/**
 * A session's git status: started when the session opens, refreshed before each turn. `text()`
 * never waits; `beforeTurn()` starts a refresh and waits for it at most GIT_STATUS_TURN_WAIT_MS,
 * so a slow repository costs a turn that much at most and the prompt shows the last finished run.
 * A run no turn has used yet that started less than GIT_STATUS_FRESH_MS ago is that refresh (the
 * first turn of `keen run` uses the run its session open started instead of running git twice);
 * every later turn runs git again, as files may have changed under the previous one.
 */
export class GitStatusCache {
  private last: string | undefined;
  private finished = false;
  private running: { done: Promise<void>; stop: () => void } | undefined;
  private closed = false;
  /** When the newest run started, and whether a turn has used it. */
  private newest: { startedAt: number; used: boolean } | undefined;
  /** A run timed out listing untracked files: later runs leave them out. */
  private untrackedOff = false;
  /** A run timed out even without untracked files: git status is not started again. */
  private gaveUp = false;

  constructor(
    readonly cwd: string,
    private readonly opts: GitStatusOptions & { turnWaitMs?: number; now?: () => number } = {},
  ) {}

  private now(): number {
    return this.opts.now ? this.opts.now() : monotonicMs();
  }

  /** Start a run unless one is in flight. */
  refresh(): void {
    if (this.running || this.closed || this.gaveUp) return;
    const run = readGitStatus(this.cwd, this.untrackedOff ? { ...this.opts, untracked: false } : this.opts);
    const done = run.done.then((result) => {
      if (this.running?.done === done) this.running = undefined;
      if (result.timedOut && result.untrackedOff) this.gaveUp = true;
      else if (result.timedOut) this.untrackedOff = true;
      this.last = formatGitStatus(result, this.opts.timeoutMs);
      this.finished = true;
    });
    this.running = { done, stop: run.stop };
    this.newest = { startedAt: this.now(), used: false };
  }

  /** Refresh (unless a fresh unused run exists), and wait for the run in flight at most the turn wait (or until `signal` aborts). */
  async beforeTurn(signal?: AbortSignal): Promise<void> {
    const fresh = this.newest && !this.newest.used && this.now() - this.newest.startedAt < GIT_STATUS_FRESH_MS;
    if (!fresh) this.refresh();
    if (this.newest) this.newest.used = true;
    const running = this.running;
    if (!running) return;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    await Promise.race([
      running.done,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.opts.turnWaitMs ?? GIT_STATUS_TURN_WAIT_MS);
        onAbort = resolve;
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }

  /** The prompt text of the last finished run; a note while the first one is still running. */
  text(): string | undefined {
    if (this.gaveUp) return `… git status is not run: it did not finish within ${(this.opts.timeoutMs ?? GIT_STATUS_TIMEOUT_MS) / 1000} s here, even without untracked files`;
    if (this.finished) return this.last;
    return this.running ? '… git status is still running (a large repository?); not shown yet' : undefined;
  }

  /** Stop a run in flight; no more runs. */
  close(): void {
    this.closed = true;
    this.running?.stop();
  }
}
