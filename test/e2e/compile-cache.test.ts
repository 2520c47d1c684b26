/**
 * The launcher's compile cache end to end (src/launch/launch.ts): `bin/keen.js` spawned with its
 * own KEEN_COMPILE_CACHE. The first run of a command writes V8's code for it; later runs use it and
 * leave it alone; a damaged or foreign cache is replaced, never run; a cache that cannot be
 * written, or is turned off, changes nothing the user sees.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCacheFile, writeCacheFile } from '../../src/launch/compile-cache.js';
import { TmuxKeen } from '../repl/tmux.js';
import { type CliRig, FAKE_KEY, startRig } from './cli-fixtures.js';
import { cleanEnv } from './harness.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the compile cache of bin/keen.js', () => {
  let rig: CliRig;
  let ws: Workspace;
  beforeAll(async () => {
    rig = await startRig();
    ws = tempWorkspace();
  });
  afterAll(async () => {
    await rig.fake.close();
    ws.cleanup();
  });

  async function runIn(cache: string, text: string) {
    rig.fake.enqueue({ steps: [{ text }] });
    const res = await rig.keen(ws, ['run', 'say hello'], { env: { KEEN_COMPILE_CACHE: cache } });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(text);
    expect(res.stderr).toBe('');
    return res;
  }
  const files = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir) : []);

  it('writes the run command’s cache on the first run and launches from it unchanged afterwards', async () => {
    const cache = path.join(ws.home, 'cc-fresh');
    await runIn(cache, 'first answer');
    const [name] = files(cache);
    expect(files(cache)).toHaveLength(1);
    expect(name).toMatch(/-run-plain-v\d+\.\d+\.\d+-[a-z0-9]+\.v8$/);
    const file = path.join(cache, name);
    const written = fs.readFileSync(file);
    expect(readCacheFile(file)?.length).toBeGreaterThan(100_000);
    await runIn(cache, 'second answer');
    // Used, not rejected by V8: a rejected or unreadable cache would have been written again.
    expect(fs.readFileSync(file).equals(written)).toBe(true);
    expect(files(cache)).toEqual([name]);
  });

  it('replaces a cache with a flipped bit, and one V8 refuses, and still answers', async () => {
    const cache = path.join(ws.home, 'cc-damaged');
    await runIn(cache, 'warm');
    const [name] = files(cache);
    const file = path.join(cache, name);
    const good = fs.readFileSync(file);

    const flipped = Buffer.from(good);
    flipped[Math.floor(flipped.length / 2)] ^= 0x10;
    fs.writeFileSync(file, flipped);
    await runIn(cache, 'after a flipped bit');
    expect(readCacheFile(file)).toBeDefined();

    // A well-formed file whose payload is not V8's code for this bundle.
    writeCacheFile(file, Buffer.alloc(good.length, 0x42));
    await runIn(cache, 'after a foreign payload');
    const payload = readCacheFile(file);
    expect(payload?.equals(Buffer.alloc(good.length, 0x42))).toBe(false);
    expect(payload?.length).toBeGreaterThan(100_000);
  });

  it('writes no cache for a run that failed: the next successful run writes the whole path', async () => {
    const cache = path.join(ws.home, 'cc-failed');
    const res = await rig.keen(ws, ['run', 'say hello'], { env: { KEEN_COMPILE_CACHE: cache, ANTHROPIC_API_KEY: undefined } });
    expect(res.code).not.toBe(0);
    expect(files(cache)).toEqual([]);
    await runIn(cache, 'now with a key');
    expect(files(cache)).toHaveLength(1);
  });

  it('writes the REPL’s cache, and its UI island’s, when the REPL is left with Ctrl+C twice', async () => {
    const cache = path.join(ws.home, 'cc-repl');
    const t = TmuxKeen.start({ cwd: ws.cwd, env: { KEEN_HOME: ws.home, KEEN_COMPILE_CACHE: cache, ANTHROPIC_API_KEY: FAKE_KEY, ANTHROPIC_BASE_URL: rig.fake.url } });
    try {
      await t.waitFor('% context');
      t.keys('C-c');
      t.keys('C-c');
      await t.waitFor('[keen exited 0]');
    } finally {
      t.kill();
    }
    // Ink and React live in an island of their own (scripts/build.mjs ISLANDS), cached apart.
    const written = files(cache);
    expect(written).toHaveLength(2);
    expect(written).toEqual(expect.arrayContaining([expect.stringMatching(/-island-ui-plain-v\d+/), expect.stringMatching(/-repl-plain-v\d+/)]));
  });

  it('runs as usual when the cache cannot be written or is turned off', async () => {
    const blocked = path.join(ws.home, 'cc-blocked');
    fs.writeFileSync(blocked, 'a file where the cache directory would be');
    await runIn(blocked, 'no cache directory');
    expect(fs.readFileSync(blocked, 'utf8')).toBe('a file where the cache directory would be');

    await runIn('off', 'cache off');
    expect(fs.existsSync(path.join(ws.cwd, 'off'))).toBe(false);
  });

  it('under node --enable-source-maps compiles the bundle through Node’s loader: stacks map to the sources', async () => {
    const cache = path.join(ws.home, 'cc-maps');
    rig.fake.enqueue({ steps: [{ text: 'mapped' }] });
    const res = await rig.keen(ws, ['run', 'say hello'], { env: { KEEN_COMPILE_CACHE: cache, NODE_OPTIONS: '--enable-source-maps' } });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('mapped');
    expect(files(cache)).toEqual([]);
    const probe = spawnSync(
      process.execPath,
      [
        '--enable-source-maps',
        '--input-type=module',
        '-e',
        `process.argv = [process.execPath, 'keen', 'help'];
         const { launch } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/main.js')).href)});
         launch();
         const { findSourceMap } = await import('node:module');
         const { readFileSync } = await import('node:fs');
         const app = ${JSON.stringify(path.join(ROOT, 'dist/app.cjs'))};
         const map = findSourceMap(app);
         const lines = readFileSync(app, 'latin1').split('\\n');
         const line = lines.findIndex((l) => l.includes('a headless run needs --resume'));
         const entry = map && line >= 0 ? map.findEntry(line, lines[line].indexOf('a headless run needs --resume')) : undefined;
         process.stderr.write('maps to: ' + (entry ? entry.originalSource : 'nothing') + '\\n');`,
      ],
      { cwd: ws.cwd, env: cleanEnv({ KEEN_HOME: ws.home, KEEN_COMPILE_CACHE: cache }), encoding: 'utf8' },
    );
    expect(probe.stdout).toContain('Usage: keen');
    expect(probe.stderr).toMatch(/maps to: file:\/\/\S+\/src\/cli\/commands\.ts\n/);
  });

  it('answers --version without the bundle or its cache', async () => {
    const cache = path.join(ws.home, 'cc-version');
    const res = await rig.keen(ws, ['--version'], { env: { KEEN_COMPILE_CACHE: cache } });
    expect(res.code).toBe(0);
    expect(res.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(files(cache)).toEqual([]);
  });
});
