/**
 * The compile cache's decisions and file handling (src/launch/compile-cache.ts): where it lives,
 * which cache a command uses, and that a damaged, foreign or publicly writable cache is never
 * handed to V8 — V8 checks no checksum of its own, so a flipped bit would run as code.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheFileName, commandClass, compileCacheDir, isOwnCacheFile, MAX_FILES, nodeOptionsOf, readCacheFile, STALE_MS, writeCacheFile } from '../../src/launch/compile-cache.js';
import { tempDir } from '../kit/temp-dir.js';

describe('compileCacheDir', () => {
  it('is under ~/.cache, or XDG_CACHE_HOME when it is absolute', () => {
    expect(compileCacheDir({}, '/home/u')).toBe(path.join('/home/u', '.cache', 'keen', 'compile'));
    expect(compileCacheDir({ XDG_CACHE_HOME: '/xdg' }, '/home/u')).toBe(path.join('/xdg', 'keen', 'compile'));
    expect(compileCacheDir({ XDG_CACHE_HOME: 'relative' }, '/home/u')).toBe(path.join('/home/u', '.cache', 'keen', 'compile'));
  });

  it('KEEN_COMPILE_CACHE names the directory (absolute) or turns the cache off; NODE_DISABLE_COMPILE_CACHE turns it off', () => {
    expect(compileCacheDir({ KEEN_COMPILE_CACHE: '/c' }, '/home/u')).toBe(path.resolve('/c'));
    // `on`, `1` or a relative path would create a directory in the project: the default instead.
    for (const other of ['on', '1', 'true', 'cache']) expect(compileCacheDir({ KEEN_COMPILE_CACHE: other }, '/home/u')).toBe(path.join('/home/u', '.cache', 'keen', 'compile'));
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
  const bundle = { buildId: 'abc123', size: 1000, mtimeMs: 1700000000000.5, ctimeMs: 1700000000100 };
  it('changes with the build, the bundle file, the command, Node options, Node and the architecture', () => {
    const base = cacheFileName(bundle, 'run', '', 'v20.20.2', 'x64');
    const variants = [
      cacheFileName({ ...bundle, buildId: 'abc124' }, 'run', '', 'v20.20.2', 'x64'),
      cacheFileName({ ...bundle, size: 1001 }, 'run', '', 'v20.20.2', 'x64'),
      cacheFileName({ ...bundle, mtimeMs: 1700000000001 }, 'run', '', 'v20.20.2', 'x64'),
      // `touch -r` / `cp -p` restore the mtime of an edited bundle; its ctime still moves.
      cacheFileName({ ...bundle, ctimeMs: 1700000000200 }, 'run', '', 'v20.20.2', 'x64'),
      cacheFileName(bundle, 'repl', '', 'v20.20.2', 'x64'),
      cacheFileName(bundle, 'run', '--max-old-space-size=4096', 'v20.20.2', 'x64'),
      cacheFileName(bundle, 'run', '', 'v22.1.0', 'x64'),
      cacheFileName(bundle, 'run', '', 'v20.20.2', 'arm64'),
    ];
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
    for (const name of [base, ...variants]) expect(name).toMatch(/^[A-Za-z0-9._-]+\.v8$/);
  });

  it('takes the Node options from the command line and NODE_OPTIONS', () => {
    expect(nodeOptionsOf({}, [])).toBe('');
    expect(nodeOptionsOf({ NODE_OPTIONS: '--max-old-space-size=4096' }, ['--enable-source-maps'])).toBe('--enable-source-maps --max-old-space-size=4096');
  });
});

describe('isOwnCacheFile', () => {
  const stat = (over: Partial<{ file: boolean; nlink: number; mode: number; uid: number }> = {}) =>
    ({ isFile: () => over.file ?? true, nlink: over.nlink ?? 1, mode: over.mode ?? 0o100600, uid: over.uid ?? 1000 }) as unknown as fs.Stats;
  it('accepts only a regular, singly linked file of this user that no one else can write', () => {
    expect(isOwnCacheFile(stat(), 1000, 'linux')).toBe(true);
    expect(isOwnCacheFile(stat({ uid: 65534 }), 1000, 'linux')).toBe(false);
    expect(isOwnCacheFile(stat({ mode: 0o100620 }), 1000, 'linux')).toBe(false);
    expect(isOwnCacheFile(stat({ mode: 0o100602 }), 1000, 'linux')).toBe(false);
    expect(isOwnCacheFile(stat({ nlink: 2 }), 1000, 'linux')).toBe(false);
    expect(isOwnCacheFile(stat({ file: false }), 1000, 'linux')).toBe(false);
  });

  it('on Windows (no owner, every writable file 0o666) checks the kind and the link count', () => {
    expect(isOwnCacheFile(stat({ mode: 0o100666, uid: 0 }), undefined, 'win32')).toBe(true);
    expect(isOwnCacheFile(stat({ mode: 0o100666, nlink: 2 }), undefined, 'win32')).toBe(false);
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

  it('does not read a cache through a symlink, a second hard link or a file others can write', () => {
    const dir = tempDir();
    const file = path.join(dir, 'x.v8');
    writeCacheFile(file, Buffer.from('payload'));
    const link = path.join(dir, 'link.v8');
    fs.symlinkSync(file, link);
    expect(readCacheFile(link)).toBeUndefined();
    const hard = path.join(dir, 'hard.v8');
    fs.linkSync(file, hard);
    expect(readCacheFile(hard)).toBeUndefined();
    expect(readCacheFile(file)).toBeUndefined();
    fs.rmSync(hard);
    expect(readCacheFile(file)).toEqual(Buffer.from('payload'));
    fs.chmodSync(file, 0o622);
    expect(readCacheFile(file)).toBeUndefined();
  });

  it('never writes through a file or symlink planted under the temporary name', () => {
    const dir = tempDir();
    const victim = path.join(dir, 'notes.txt');
    fs.writeFileSync(victim, 'my notes');
    const file = path.join(dir, 'x.v8');
    fs.symlinkSync(victim, `${file}.${process.pid}.tmp`);
    expect(writeCacheFile(file, Buffer.from('payload'))).toBe(false);
    expect(fs.readFileSync(victim, 'utf8')).toBe('my notes');
    expect(fs.lstatSync(`${file}.${process.pid}.tmp`).isSymbolicLink()).toBe(true);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('keeps a cache in use young, so pruning by age never removes it', () => {
    const dir = tempDir();
    const file = path.join(dir, 'x.v8');
    writeCacheFile(file, Buffer.from('payload'));
    const old = new Date(Date.now() - 3 * 24 * 60 * 60 * 1000);
    fs.utimesSync(file, old, old);
    expect(readCacheFile(file)).toEqual(Buffer.from('payload'));
    expect(Date.now() - fs.statSync(file).mtimeMs).toBeLessThan(60_000);
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

  it(`keeps at most ${MAX_FILES} cache files, the newest`, () => {
    const dir = tempDir();
    const now = Date.now();
    for (let i = 0; i < MAX_FILES + 5; i++) {
      const f = path.join(dir, `build-${String(i).padStart(2, '0')}.v8`);
      fs.writeFileSync(f, '');
      const t = new Date(now - (i + 1) * 60_000);
      fs.utimesSync(f, t, t);
    }
    expect(writeCacheFile(path.join(dir, 'new.v8'), Buffer.from('payload'), now)).toBe(true);
    const left = fs.readdirSync(dir).sort();
    expect(left).toHaveLength(MAX_FILES);
    expect(left).toContain('new.v8');
    expect(left).toContain('build-00.v8');
    expect(left).not.toContain(`build-${String(MAX_FILES - 1).padStart(2, '0')}.v8`);
  });
});
