import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, realpathSync, type Stats, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve as pathResolve } from 'node:path';
import type { ConfigEntry } from './neutralise.js';

/**
 * Listing the config git will read, whole or not at all. Keen turns off a repository's
 * code-running settings from this listing, so a listing that is cut (a config larger than the
 * cap), stalls (an include of a fifo, of stdin) or reads something other than a plain file (an
 * include of a device, of /proc) would let a setting through unseen: then the listing is a
 * refusal, and the caller runs no git. The listing runs in a session of its own with stdin
 * empty, so no include reaches the terminal.
 */

/** The config listed, or why it could not be listed in full. */
export type ConfigListing = { entries: ConfigEntry[] } | { problem: string };

/** Reading config is capped in time like the status itself. */
export const CONFIG_TIMEOUT_MS = 2000;
/** The listing is refused beyond this many bytes (git's own config is a few KB). */
export const CONFIG_MAX_BYTES = 1 << 20;
const CONFIG_ARGS = ['config', '--null', '--list', '--includes', '--show-scope', '--show-origin'];

interface Origin {
  entry: ConfigEntry;
  /** The file the entry came from (absolute), when it came from a file. */
  file?: string;
}

/** Parse `git config --null --list --show-scope --show-origin` (`scope NUL origin NUL key [LF value] NUL`…); relative origins are from `base`. */
function parseListing(out: string, base: string): Origin[] {
  const parts = out.split('\0');
  const entries: Origin[] = [];
  for (let i = 0; i + 2 < parts.length; i += 3) {
    const [scope, origin, kv] = [parts[i]!, parts[i + 1]!, parts[i + 2]!];
    const nl = kv.indexOf('\n');
    const entry: ConfigEntry = nl < 0 ? { scope, key: kv } : { scope, key: kv.slice(0, nl), value: kv.slice(nl + 1) };
    entries.push({ entry, file: origin.startsWith('file:') ? pathResolve(base, origin.slice(5)) : undefined });
  }
  return entries;
}

const INCLUDE = /^include(if\..*)?\.path$/i;

/** The file an include names, as git resolves it (`~/` from HOME, relative from the including file). */
function includeTarget(value: string, from: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (value.startsWith('~/')) return env.HOME ? join(env.HOME, value.slice(2)) : undefined;
  if (isAbsolute(value)) return value;
  return from ? pathResolve(dirname(from), value) : undefined;
}

/** /proc and /sys: "plain" files whose text the kernel writes as they are read. */
const KERNEL_FILES = /^\/(proc|sys)(\/|$)/;

/** `file`'s stat, or undefined where git would find nothing (missing, or a path through a file). */
function statOf(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
}

/** Why `listed` is not a full listing of plain files, or undefined. */
function inspect(listed: Origin[], env: NodeJS.ProcessEnv): string | undefined {
  for (const { entry, file } of listed) {
    if (!INCLUDE.test(entry.key) || entry.value === undefined) continue;
    const target = includeTarget(entry.value, file, env);
    if (!target) return `an include (${entry.value}) whose file cannot be told`;
    const st = statOf(target);
    // git skips an include that does not exist; anything but a plain file may read differently each time.
    if (st && !st.isFile()) return `an include names ${target}, which is not a plain file`;
    if (st && KERNEL_FILES.test(realpathSync.native(target))) return `an include names ${target}, a file the kernel makes up as it is read`;
  }
  return undefined;
}

function problemOf(err: unknown): string {
  const e = err as { code?: string | number; killed?: boolean; signal?: string };
  if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER' || e.code === 'ENOBUFS') return `it is larger than ${CONFIG_MAX_BYTES >> 20} MB`;
  if (e.killed || e.signal || e.code === 'ETIMEDOUT') return `listing it did not finish within ${CONFIG_TIMEOUT_MS / 1000} s`;
  if (typeof e.code === 'string' && e.code.startsWith('E')) return `Keen could not look at a file it names (${e.code})`;
  return 'git could not list it';
}

/**
 * Why the repository's own config files (`files`) cannot be read as plain files, or undefined:
 * one is not a plain file, or names an include that is not. git opens every include before it
 * lists anything (even with `--no-includes`), so a fifo is caught here rather than by the
 * listing's time cap. A quick look at the text (`[include]` / `[includeIf …]` sections'
 * `path`); the listing is inspected again, whatever this misses.
 */
export function precheck(files: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  for (const file of files) {
    const st = statOf(file);
    if (!st) continue;
    if (!st.isFile()) return `${file} is not a plain file`;
    if (st.size > CONFIG_MAX_BYTES) return `${file} is larger than ${CONFIG_MAX_BYTES >> 20} MB`;
    let section = '';
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const m = /^\s*(?:\[\s*([^\]\s"]+)[^\]]*\])?\s*(.*)$/.exec(line)!;
      if (m[1]) section = m[1].toLowerCase();
      const kv = /^path\s*=\s*(?:"([^"]*)"|([^;#]*))/i.exec(m[2] ?? '');
      if (!kv || (section !== 'include' && section !== 'includeif')) continue;
      const problem = inspect([{ entry: { scope: 'local', key: 'include.path', value: (kv[1] ?? kv[2] ?? '').trim() }, file }], env);
      if (problem) return problem;
    }
  }
  return undefined;
}

function parsed(out: string, base: string, env: NodeJS.ProcessEnv): ConfigListing {
  const listed = parseListing(out, base);
  const problem = inspect(listed, env);
  return problem ? { problem } : { entries: listed.map((o) => o.entry) };
}

const withFile = (args: string[], file?: string) => (file ? [...args, '--file', file] : args);

const options = (cwd: string, env: NodeJS.ProcessEnv) => ({
  cwd,
  env,
  encoding: 'utf8' as const,
  timeout: CONFIG_TIMEOUT_MS,
  maxBuffer: CONFIG_MAX_BYTES,
  killSignal: 'SIGKILL' as const,
  // A session of its own: no controlling terminal, so an include of /dev/tty cannot read keys.
  detached: true,
});

/** Where to list: the repository's own config files to look at first, or one `file` alone. */
export interface ListingOptions {
  local?: readonly string[];
  file?: string;
  /** The repository's top: git names its files relative to it (`file:.git/config`), from any subfolder. */
  top?: string;
}

/** `git config --list` of `git` in `cwd` (or of `file`), inspected; never throws. */
export function listConfigSync(git: string, cwd: string, env: NodeJS.ProcessEnv, opts: ListingOptions = {}): ConfigListing {
  try {
    const problem = precheck([...(opts.local ?? []), ...(opts.file ? [opts.file] : [])], env);
    if (problem) return { problem };
    return parsed(execFileSync(git, withFile(CONFIG_ARGS, opts.file), { ...options(cwd, env), stdio: ['ignore', 'pipe', 'ignore'] }), opts.top ?? cwd, env);
  } catch (err) {
    return { problem: problemOf(err) };
  }
}

/** The same, without blocking. */
export async function listConfig(git: string, cwd: string, env: NodeJS.ProcessEnv, opts: ListingOptions = {}): Promise<ConfigListing> {
  try {
    const problem = precheck([...(opts.local ?? []), ...(opts.file ? [opts.file] : [])], env);
    if (problem) return { problem };
    const out = await new Promise<string>((resolve, reject) => {
      const child = execFile(git, withFile(CONFIG_ARGS, opts.file), options(cwd, env), (err, stdout) => (err ? reject(err) : resolve(stdout)));
      child.stdin?.end();
    });
    return parsed(out, opts.top ?? cwd, env);
  } catch (err) {
    return { problem: problemOf(err) };
  }
}
