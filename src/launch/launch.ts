/**
 * The first code of every launch (built to dist/main.js, imported by bin/keen.js): compiles the
 * bundled CLI (dist/app.cjs) with V8's code cache from the last run and runs it.
 *
 * dist/app.cjs is one CommonJS-style function expression (scripts/build.mjs): modules that a
 * command never imports are wrapped and never evaluated, and with the cache V8 neither parses nor
 * compiles what it ran before. Without a usable cache the bundle compiles as usual, and the code
 * that run compiled is written to the cache when the process exits (compile-cache.ts).
 *
 * Imports nothing of Keen but the version: this file runs before any cache can help it.
 */
import { readFileSync, statSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { homedir } from 'node:os';
import { join, dirname as pathDirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { isVersionRequest, VERSION } from '../version.js';
import { cacheFileName, commandClass, compileCacheDir, nodeOptionsOf, readCacheFile, writeCacheFile } from './compile-cache.js';
import { islandRequire } from './islands.js';

declare const KEEN_BUILD_ID: string | undefined;
/** Which island serves each package specifier the bundle requires (scripts/build.mjs). */
declare const KEEN_ISLANDS: Record<string, string> | undefined;

/**
 * The parameters dist/app.cjs's function takes, in order (scripts/build.mjs writes them). `require`
 * also serves the bundle's `import()` of external packages and builtins, which esbuild writes as a
 * `require` in a promise: a vm script has no `import()` of its own.
 */
type BundleFunction = (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, dirname: string, importMetaUrl: string) => void;

/** Runs the CLI in dist/ for this process's argv (the bundle reads `process.argv` itself). */
export function launch(env: NodeJS.ProcessEnv = process.env): void {
  const args = process.argv.slice(2);
  if (isVersionRequest(args)) {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  const file = fileURLToPath(new URL('./app.cjs', import.meta.url));
  const base = createRequire(file);
  // An island's cache is one per island, not per command: every command runs the same SDK code.
  const load = (island: string) => runScript(join(pathDirname(file), `${island}.cjs`), `island-${island}`, base, env);
  runScript(file, commandClass(args), islandRequire(base, ISLAND_TABLE, load), env);
}

/** Compiles and runs one of dist/'s scripts (a function expression, BundleFunction); its `module.exports`. */
function runScript(file: string, cacheKind: string, require: NodeJS.Require, env: NodeJS.ProcessEnv): unknown {
  // The build checks its scripts are ASCII: latin1 is then the same text, read without decoding.
  const source = readFileSync(file, 'latin1');
  const run = process.sourceMapsEnabled ? compileWithSourceMaps(file, source) : compileCached(file, source, cacheKind, env);
  const module = { exports: {} };
  run(module.exports, require, module, file, pathDirname(file), pathToFileURL(file).href);
  return module.exports;
}

/** Compiles a script with the code cache of the last run of this kind (a command, or an island). */
function compileCached(file: string, source: string, cacheKind: string, env: NodeJS.ProcessEnv): BundleFunction {
  const dir = compileCacheDir(env, homedir());
  let cacheFile: string | undefined;
  if (dir && typeof KEEN_BUILD_ID === 'string') {
    const st = statSync(file);
    const bundle = { buildId: KEEN_BUILD_ID, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs };
    cacheFile = join(dir, cacheFileName(bundle, cacheKind, nodeOptionsOf(env, process.execArgv)));
  }
  const cachedData = cacheFile ? readCacheFile(cacheFile) : undefined;
  const script = new Script(source, { filename: file, cachedData });
  if (cacheFile && (!cachedData || script.cachedDataRejected)) {
    const target = cacheFile;
    // At exit the cache holds every function this run compiled, not only the top level. A run
    // that failed (a missing key, a bad flag: 1–127) ran little of its command, so the next one
    // writes it; one ended by a signal (128+: Ctrl+C, SIGTERM) ran its course.
    process.once('exit', (code) => {
      if (code > 0 && code < 128) return;
      try {
        writeCacheFile(target, script.createCachedData());
      } catch {
        // a cache is only speed
      }
    });
  }
  return script.runInThisContext() as BundleFunction;
}

/**
 * `node --enable-source-maps`: Node maps stack traces only of code its module loader compiled, so
 * the bundle goes through it (no code cache; a debugging run).
 */
function compileWithSourceMaps(file: string, source: string): BundleFunction {
  const loaded = new Module(file) as Module & { _compile(code: string, filename: string): void };
  loaded.filename = file;
  loaded._compile(`module.exports = ${source}`, file);
  return loaded.exports as BundleFunction;
}

/** The build's island table, for tests: which island serves each package the bundle requires. */
export const ISLAND_TABLE: Readonly<Record<string, string>> = typeof KEEN_ISLANDS === 'object' ? KEEN_ISLANDS : {};
