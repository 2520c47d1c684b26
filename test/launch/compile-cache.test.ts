/**
 * The compile cache's decisions and file handling (src/launch/compile-cache.ts): where it lives,
 * which cache a command uses, and that a damaged, foreign or publicly writable cache is never
 * handed to V8 — V8 checks no checksum of its own, so a flipped bit would run as code.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheFileName, commandClass, compileCacheDir, readCacheFile, STALE_MS, writeCacheFile } from '../../src/launch/compile-cache.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keen-cc-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('compileCacheDir', () => {
  it('is under ~/.cache, or XDG_CACHE_HOME when it is absolute', () => {
    expect(compileCacheDir({}, '/home/u')).toBe(path.join('/home/u', '.cache', 'keen', 'compile'));
    expect(compileCacheDir({ XDG_CACHE_HOME: '/xdg' }, '/home/u')).toBe(path.join('/xdg', 'keen', 'compile'));
    expect(compileCacheDir({ XDG_CACHE_HOME: 'relative' }, '/home/u')).toBe(path.join('/home/u', '.cache', 'keen', 'compile'));
  });

  it('KEEN_COMPILE_CACHE names the directory or turns the cache off; NODE_DISABLE_COMPILE_CACHE turns it off', () => {
    expect(compileCacheDir({ KEEN_COMPILE_CACHE: '/c' }, '/home/u')).toBe(path.resolve('/c'));
    for (const off of ['0', 'off', 'OFF', 'false', 'no']) expect(compileCacheDir({ KEEN_COMPILE_CACHE: off }, '/home/u')).toBeUndefined();
    expect(compileCacheDir({ NODE_DISABLE_COMPILE_CACHE: '1' }, '/home/u')).toBeUndefined();
  });
});

describe('commandClass', () => {
  it('keeps one cache for headless runs, one for the REPL and one per subcommand', () => {
    expect(commandClass(['run', 'say hello'])).toBe('run');
    expect(commandClass(['--yolo', '-p', 'fix it'])).toBe('run');
    expect(commandClass([])).toBe('repl');
    expect(commandClass(['--continue'])).toBe('repl');
    expect(commandClass(['fix the failing test'])).toBe('repl');
    expect(commandClass(['--', 'word'])).toBe('repl');
    expect(commandClass(['sessions', '--all'])).toBe('sessions');
    expect(commandClass(['Über'])).toBe('other');
    expect(commandClass(['--help'])).toBe('help');
    expect(commandClass(['run', '-h'])).toBe('help');
  });
});

describe('cacheFileName', () => {
  const bundle = { buildId: 'abc123', size: 1000, mtimeMs: 1700000000000.5 };
  it('changes with the build, the bundle file, the command, Node and the architecture', () => {
    const base = cacheFileName(bundle, 'run', 'v20.20.2', 'x64');
    const variants = [
      cacheFileName({ ...bundle, buildId: 'abc124' }, 'run', 'v20.20.2', 'x64'),
      cacheFileName({ ...bundle, size: 1001 }, 'run', 'v20.20.2', 'x64'),
      cacheFileName({ ...bundle, mtimeMs: 1700000000001 }, 'run', 'v20.20.2', 'x64'),
      cacheFileName(bundle, 'repl', 'v20.20.2', 'x64'),
      cacheFileName(bundle, 'run', 'v22.1.0', 'x64'),
      cacheFileName(bundle, 'run', 'v20.20.2', 'arm64'),
    ];
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
    expect(base).toMatch(/^[A-Za-z0-9._-]+\.v8$/);
  });
});

describe('reading and writing cache files', () => {
  it('reads back exactly what was written', () => {
    const file = path.join(tempDir(), 'cache', 'x.v8');
    const payload = Buffer.from('compiled code, pretend');
    expect(writeCacheFile(file, payload)).toBe(true);
    expect(readCacheFile(file)).toEqual(payload);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('never hands over a payload with a flipped bit, a foreign header or a truncated body', () => {
    const file = path.join(tempDir(), 'x.v8');
    writeCacheFile(file, Buffer.alloc(4096, 7));
    const good = fs.readFileSync(file);
    const flipped = Buffer.from(good);
    flipped[2000] ^= 1;
    fs.writeFileSync(file, flipped);
    expect(readCacheFile(file)).toBeUndefined();
    const foreign = Buffer.from(good);
    foreign.write('XXXX', 0);
    fs.writeFileSync(file, foreign);
    expect(readCacheFile(file)).toBeUndefined();
    fs.writeFileSync(file, good.subarray(0, good.length - 1));
    expect(readCacheFile(file)).toBeUndefined();
    fs.writeFileSync(file, good.subarray(0, 8));
    expect(readCacheFile(file)).toBeUndefined();
    expect(readCacheFile(path.join(path.dirname(file), 'missing.v8'))).toBeUndefined();
  });

  it('does not read from or write to a directory others can write to', () => {
    const dir = tempDir();
    const file = path.join(dir, 'x.v8');
    writeCacheFile(file, Buffer.from('payload'));
    fs.chmodSync(dir, 0o777);
    expect(readCacheFile(file)).toBeUndefined();
    expect(writeCacheFile(path.join(dir, 'y.v8'), Buffer.from('payload'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'y.v8'))).toBe(false);
  });

  it('returns false and leaves no temporary file when the write cannot complete', () => {
    const dir = tempDir();
    // The target is a directory: the rename fails after the temporary file was written.
    const file = path.join(dir, 'x.v8');
    fs.mkdirSync(file);
    fs.writeFileSync(path.join(file, 'keep'), '');
    expect(writeCacheFile(file, Buffer.from('payload'))).toBe(false);
    expect(fs.readdirSync(dir)).toEqual(['x.v8']);
    // The cache directory's path is a file.
    const blocked = path.join(dir, 'blocked');
    fs.writeFileSync(blocked, '');
    expect(writeCacheFile(path.join(blocked, 'x.v8'), Buffer.from('payload'))).toBe(false);
  });

  it('removes cache files of other builds once they are a week old, and stray temporary files after an hour', () => {
    const dir = tempDir();
    const now = Date.now();
    const age = (name: string, ms: number) => {
      fs.writeFileSync(path.join(dir, name), '');
      const t = new Date(now - ms);
      fs.utimesSync(path.join(dir, name), t, t);
    };
    age('old-build.v8', STALE_MS + 60_000);
    age('recent-build.v8', STALE_MS - 60_000);
    age('crashed.v8.123.tmp', 2 * 60 * 60 * 1000);
    age('writing.v8.456.tmp', 60_000);
    age('notes.txt', STALE_MS * 2);
    expect(writeCacheFile(path.join(dir, 'new.v8'), Buffer.from('payload'), now)).toBe(true);
    expect(fs.readdirSync(dir).sort()).toEqual(['new.v8', 'notes.txt', 'recent-build.v8', 'writing.v8.456.tmp']);
  });
});
