/**
 * V8's compiled code of the bundle (dist/app.cjs), kept between runs: compiling ~1.8 MB of
 * JavaScript is the largest cost of every launch, and Node 20 has no compile cache of its own
 * (`module.enableCompileCache` is Node ≥ 22.1, and it does not cover `vm` scripts anyway).
 *
 * Invariants:
 * - A cache file is only ever used for the exact bundle it was made from: its name carries the
 *   build id (a hash of the bundle, fixed at build time), the bundle's size, mtime and ctime,
 *   the Node options, the Node version and the architecture. V8 itself also refuses data from
 *   another V8 or other flags.
 * - V8 does not checksum code caches in release builds (a flipped bit would run as code), so each
 *   file starts with a CRC-32 of its payload; a file that does not match is ignored and replaced.
 * - Files are written whole or not at all (a new temporary file renamed into place), 0600 in a
 *   0700 directory, and read only when the opened file is this user's own and writable by no one
 *   else: compiled code from someone else must never run as Keen.
 * - Nothing here ever fails a launch: a cache that cannot be read or written costs speed only.
 */
import { type Stats, openSync, constants, fstatSync, readFileSync, futimesSync, closeSync, mkdirSync, writeFileSync, renameSync, lstatSync, rmSync, readdirSync } from 'node:fs';
import { isAbsolute, resolve, join, dirname, basename } from 'node:path';
import { crc32 } from 'node:zlib';

/** The bundle file the cache is for. */
export interface BundleIdentity {
  /** Hash of the bundle's text, computed by the build. */
  buildId: string;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

const MAGIC = 0x4b434331; // "KCC1"
const HEADER_BYTES = 8;
/** Cache files unused this long are removed when a new one is written (other builds, other Nodes). */
export const STALE_MS = 7 * 24 * 60 * 60 * 1000;
const TMP_STALE_MS = 60 * 60 * 1000;
/** A used cache's mtime is refreshed when it is older than this. */
const TOUCH_MS = 24 * 60 * 60 * 1000;
/** At most this many cache files are kept (newest first). */
export const MAX_FILES = 32;

/** The directory caches live in, or undefined when caching is turned off. */
export function compileCacheDir(env: NodeJS.ProcessEnv, home: string): string | undefined {
  const own = env.KEEN_COMPILE_CACHE?.trim();
  if (own && /^(0|off|false|no)$/i.test(own)) return undefined;
  if (env.NODE_DISABLE_COMPILE_CACHE?.trim()) return undefined;
  // Only an absolute path moves it (`on`, `1` or a relative path would land in the project).
  if (own && isAbsolute(own)) return resolve(own);
  const xdg = env.XDG_CACHE_HOME?.trim();
  const base = xdg && isAbsolute(xdg) ? xdg : join(home, '.cache');
  return join(base, 'keen', 'compile');
}

/**
 * Which cache a launch uses: one per kind of command, so that `keen run` and the REPL each keep
 * the code they run (a cache holds what was compiled by the run that wrote it). Only a guess from
 * argv: a wrong one costs speed, never correctness.
 */
export function commandClass(args: readonly string[]): string {
  // A user's first `keen --help` must not become the REPL's cache (it is written only once).
  if (args.includes('-h') || args.includes('--help')) return 'help';
  if (args.includes('-p') || args.includes('--print')) return 'run';
  const first = args.find((a) => !a.startsWith('-'));
  if (first === undefined || args.includes('--') || /\s/.test(first)) return 'repl';
  return /^[a-z]+$/.test(first) ? first : 'other';
}

/**
 * The cache file's name: the build, the bundle file (size, mtime, ctime — an edit that keeps the
 * size and restores the mtime still changes the ctime), the command class, the Node options that
 * can change V8's flags, the Node version and the architecture. Characters safe everywhere.
 */
export function cacheFileName(bundle: BundleIdentity, klass: string, nodeOptions = '', node = process.version, arch = process.arch): string {
  const options = nodeOptions ? crc32(nodeOptions).toString(16) : 'plain';
  const parts = [bundle.buildId, bundle.size, Math.trunc(bundle.mtimeMs), Math.trunc(bundle.ctimeMs), klass, options, node, arch];
  return `${parts.join('-').replace(/[^A-Za-z0-9._-]/g, '_')}.v8`;
}

/** What the launcher's own Node options are, for the cache name (V8 refuses data made under other flags). */
export function nodeOptionsOf(env: NodeJS.ProcessEnv, execArgv: readonly string[]): string {
  return [...execArgv, env.NODE_OPTIONS ?? ''].join(' ').trim();
}

/**
 * True when a cache file may be handed to V8: a regular file with one link, owned by this user and
 * writable by no one else. Checked on the opened descriptor, so no directory swap or symlink in
 * between counts: another user cannot make a file owned by this one. (Windows reports no owner and
 * a 0o666 mode for every writable file; there only the kind and link count are checked.)
 */
export function isOwnCacheFile(st: Stats, uid: number | undefined, platform = process.platform): boolean {
  if (!st.isFile() || st.nlink !== 1) return false;
  if (platform === 'win32') return true;
  return (st.mode & 0o022) === 0 && (uid === undefined || st.uid === uid);
}

/** The payload of a cache file, or undefined when it is missing, foreign or damaged. */
export function readCacheFile(file: string, now = Date.now()): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!isOwnCacheFile(st, process.getuid?.())) return undefined;
    const data = readFileSync(fd);
    if (data.length <= HEADER_BYTES || data.readUInt32BE(0) !== MAGIC) return undefined;
    const payload = data.subarray(HEADER_BYTES);
    if (crc32(payload) !== data.readUInt32BE(4)) return undefined;
    // A cache in use stays young, so pruning (by age) never removes it; once a day is enough.
    if (now - st.mtimeMs > TOUCH_MS) futimesSync(fd, new Date(now), new Date(now));
    return payload;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a cache file whole (a new temporary file, then rename), in a 0700 directory, and prunes
 * the directory. Returns false when it could not (nothing else happens then).
 */
export function writeCacheFile(file: string, payload: Uint8Array, now = Date.now()): boolean {
  const dir = dirname(file);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const header = Buffer.alloc(HEADER_BYTES);
    header.writeUInt32BE(MAGIC, 0);
    header.writeUInt32BE(crc32(payload), 4);
    // `wx`: never through a file or symlink someone left under that name.
    writeFileSync(tmp, Buffer.concat([header, payload]), { mode: 0o600, flag: 'wx' });
    renameSync(tmp, file);
  } catch {
    try {
      if (lstatSync(tmp).isFile()) rmSync(tmp, { force: true });
    } catch {
      // nothing was written
    }
    return false;
  }
  pruneCacheDir(dir, basename(file), now);
  return true;
}

/**
 * Removes cache files not used for a week (other builds, other Nodes), temporary files left by a
 * crash after an hour, and the oldest beyond MAX_FILES (a contributor rebuilding all day).
 */
function pruneCacheDir(dir: string, keep: string, now: number): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const caches: { file: string; mtimeMs: number }[] = [];
  for (const name of names) {
    if (name === keep || !/\.v8(\.\d+\.tmp)?$/.test(name)) continue;
    const file = join(dir, name);
    try {
      const { mtimeMs } = lstatSync(file);
      if (now - mtimeMs > (name.endsWith('.tmp') ? TMP_STALE_MS : STALE_MS)) rmSync(file, { force: true });
      else if (!name.endsWith('.tmp')) caches.push({ file, mtimeMs });
    } catch {
      // another Keen removed it first
    }
  }
  caches.sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const { file } of caches.slice(MAX_FILES - 1)) {
    try {
      rmSync(file, { force: true });
    } catch {
      // not ours to remove
    }
  }
}
