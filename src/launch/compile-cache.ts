/**
 * V8's compiled code of the bundle (dist/app.cjs), kept between runs: compiling ~1.6 MB of
 * JavaScript is the largest cost of every launch, and Node 20 has no compile cache of its own
 * (`module.enableCompileCache` is Node ≥ 22.1, and it does not cover `vm` scripts anyway).
 *
 * Invariants:
 * - A cache file is only ever used for the exact bundle it was made from: its name carries the
 *   build id (a hash of the bundle, fixed at build time), the bundle's size and mtime, the Node
 *   version and the architecture. V8 itself also refuses data from another V8 or other flags.
 * - V8 does not checksum code caches in release builds (a flipped bit would run as code), so each
 *   file starts with a CRC-32 of its payload; a file that does not match is ignored and replaced.
 * - Files are written whole or not at all (a temporary file renamed into place), in a directory
 *   only the user can read (0700): compiled code from someone else must never run as Keen.
 * - Nothing here ever fails a launch: a cache that cannot be read or written costs speed only.
 */
import fs from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';

/** The bundle file the cache is for. */
export interface BundleIdentity {
  /** Hash of the bundle's text, computed by the build. */
  buildId: string;
  size: number;
  mtimeMs: number;
}

const MAGIC = 0x4b434331; // "KCC1"
const HEADER_BYTES = 8;
/** Cache files older than this are removed when a new one is written (other builds, other Nodes). */
export const STALE_MS = 7 * 24 * 60 * 60 * 1000;

/** The directory caches live in, or undefined when caching is turned off. */
export function compileCacheDir(env: NodeJS.ProcessEnv, home: string): string | undefined {
  const own = env.KEEN_COMPILE_CACHE?.trim();
  if (own && /^(0|off|false|no)$/i.test(own)) return undefined;
  if (env.NODE_DISABLE_COMPILE_CACHE?.trim()) return undefined;
  if (own) return path.resolve(own);
  const xdg = env.XDG_CACHE_HOME?.trim();
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.cache');
  return path.join(base, 'keen', 'compile');
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

/** The cache file's name for a bundle and a command class (characters safe on every file system). */
export function cacheFileName(bundle: BundleIdentity, klass: string, node = process.version, arch = process.arch): string {
  const parts = [bundle.buildId, bundle.size, Math.trunc(bundle.mtimeMs), klass, node, arch];
  return `${parts.join('-').replace(/[^A-Za-z0-9._-]/g, '_')}.v8`;
}

/**
 * True when only this user can put files in `dir`: owned by them, writable by no one else. A cache
 * directory pointed at a shared place (`KEEN_COMPILE_CACHE=/tmp/x`) is not read from.
 */
export function isPrivateDir(dir: string): boolean {
  try {
    const st = fs.statSync(dir);
    if (!st.isDirectory() || (st.mode & 0o022) !== 0) return false;
    return typeof process.getuid !== 'function' || st.uid === process.getuid();
  } catch {
    return false;
  }
}

/** The payload of a cache file, or undefined when it is missing, foreign or damaged. */
export function readCacheFile(file: string): Buffer | undefined {
  if (!isPrivateDir(path.dirname(file))) return undefined;
  let data: Buffer;
  try {
    data = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  if (data.length <= HEADER_BYTES || data.readUInt32BE(0) !== MAGIC) return undefined;
  const payload = data.subarray(HEADER_BYTES);
  return crc32(payload) === data.readUInt32BE(4) ? payload : undefined;
}

/**
 * Writes a cache file whole (temporary file, then rename), in a 0700 directory, and removes stale
 * cache files beside it. Returns false when it could not (nothing else happens then).
 */
export function writeCacheFile(file: string, payload: Uint8Array, now = Date.now()): boolean {
  const dir = path.dirname(file);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!isPrivateDir(dir)) return false;
    const header = Buffer.alloc(HEADER_BYTES);
    header.writeUInt32BE(MAGIC, 0);
    header.writeUInt32BE(crc32(payload), 4);
    fs.writeFileSync(tmp, Buffer.concat([header, payload]), { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // no directory to leave it in
    }
    return false;
  }
  pruneStale(dir, path.basename(file), now);
  return true;
}

function pruneStale(dir: string, keep: string, now: number): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name === keep || !/\.v8(\.\d+\.tmp)?$/.test(name)) continue;
    const file = path.join(dir, name);
    try {
      if (now - fs.statSync(file).mtimeMs > (name.endsWith('.tmp') ? 60 * 60 * 1000 : STALE_MS)) fs.rmSync(file, { force: true });
    } catch {
      // another Keen removed it first
    }
  }
}
