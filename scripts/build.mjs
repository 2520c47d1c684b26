// Bundles the CLI into dist/: dist/app.cjs (the whole CLI, one script that dist/main.js compiles
// with V8's code cache; src/launch/launch.ts) and dist/main.js (that launcher). A few packages stay
// external and are imported from node_modules when first needed.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist/', import.meta.url), { recursive: true, force: true });
mkdirSync(new URL('../dist/', import.meta.url));

// Every `string-width` import in the bundle (Ink, wrap-ansi, widest-line, cli-truncate, Keen's
// own) goes to src/repl/fast-string-width.ts, which answers the common one-column characters
// itself and hands the rest to string-width (the speed issue: the REPL's first frames).
const FAST_STRING_WIDTH = fileURLToPath(new URL('../src/repl/fast-string-width.ts', import.meta.url));
const fastStringWidth = {
  name: 'fast-string-width',
  setup(b) {
    b.onResolve({ filter: /^string-width$/ }, (args) => (args.importer === FAST_STRING_WIDTH ? undefined : { path: FAST_STRING_WIDTH }));
  },
};

// The built-in tools' definitions (JSON Schema from zod, token counts) computed now instead of at
// every launch (src/tools/definition-table.ts).
await build({
  entryPoints: ['src/tools/tool-table-build.ts'],
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  mainFields: ['module', 'main'],
  // Written next to node_modules so the packages it leaves external resolve (a data: URL cannot).
  external: ['@vscode/ripgrep', '@modelcontextprotocol/sdk', 'turndown', 'genkit', '@genkit-ai/*', 'react-devtools-core'],
  outfile: fileURLToPath(new URL('../node_modules/.cache/keen-build/tool-table.mjs', import.meta.url)),
  logLevel: 'warning',
});
const { buildToolTable } = await import(new URL('../node_modules/.cache/keen-build/tool-table.mjs', import.meta.url).href);

// Packages left out of the bundle: loaded from node_modules with import() when first needed.
// genkit resolves plugins and protobuf files at run time, ripgrep locates its binary, and the MCP
// and ACP SDKs, turndown and React's devtools are rarely used.
const EXTERNAL = ['genkit', '@genkit-ai/*', '@vscode/ripgrep', '@modelcontextprotocol/sdk', '@agentclientprotocol/sdk', 'turndown', 'react-devtools-core'];

// The bundle is one function expression that src/launch/launch.ts compiles with V8's code cache
// (Node 20 has no compile cache, and V8 caches only classic scripts, not ES modules). Its
// parameters, in the order launch.ts passes them.
const BUNDLE_PARAMS = ['exports', 'require', 'module', '__filename', '__dirname', '__keen_import_meta_url'];

// yoga-layout (Ink's layout engine) awaits its wasm at its top level, which a CommonJS bundle
// cannot: every `yoga-layout` import goes to a stand-in that loads it asynchronously through
// `yoga-layout/load` and decodes the wasm without the global fetch (scripts/yoga-layout-async.mjs;
// src/repl/yoga-ready.ts waits for it before Ink renders).
const YOGA_ASYNC = fileURLToPath(new URL('./yoga-layout-async.mjs', import.meta.url));
const yogaAsync = {
  name: 'yoga-async',
  setup(b) {
    b.onResolve({ filter: /^yoga-layout$/ }, (args) => (args.importer === YOGA_ASYNC ? undefined : { path: YOGA_ASYNC }));
  },
};

// Ink's reconciler awaits React's devtools and its package.json at its top level when DEV=true
// (a debugging aid for Ink's own developers); the bundle leaves devtools out. The one text patch
// left: esbuild refuses a top-level await in CommonJS output unless it sits in code it knows is
// dead while parsing that file, and Ink's guard is a call to `isDev()` from another module, which
// no `define` can fold (`define` of `process.env.DEV` folds the function's body, not the call).
const INK_DEVTOOLS = ["await import('./devtools.js');", 'await loadPackageJson()'];
const inkWithoutDevtools = {
  name: 'ink-without-devtools',
  setup(b) {
    b.onLoad({ filter: /ink[\\/]build[\\/]reconciler\.js$/ }, (args) => {
      let source = readFileSync(args.path, 'utf8');
      for (const needle of INK_DEVTOOLS) {
        if (!source.includes(needle)) throw new Error('ink changed: update inkWithoutDevtools in scripts/build.mjs');
        source = source.replace(needle, needle.startsWith('await import') ? 'void 0;' : '{ name: undefined, version: undefined }');
      }
      return { contents: source, loader: 'js' };
    });
  },
};

// Islands: packages only some runs use, each group bundled into a script of its own
// (dist/<name>.cjs) that the launcher compiles, with a code cache of its own, when the bundle first
// requires one of its packages (src/launch/islands.ts). V8 pays for every module a script holds
// even when it never runs: a `keen run` on Anthropic loads neither OpenAI's nor the AWS SDK's
// ~600 modules nor Ink's, and the REPL none of the SDKs it does not use (docs/performance.md,
// "Islands"). Keen imports their packages by name (`import { X }`, `mod.X`): a default import of a
// required module means its whole namespace (Node's interop), so the build refuses one. A module
// of Keen's that an island's package needs (fast-string-width for Ink) is bundled into the island
// too: a second copy of a stateless leaf.
const ISLANDS = {
  openai: ['openai'],
  bedrock: ['@aws-sdk/*', '@smithy/*'],
  // Ink and React (and yoga): only the REPL and the pickers draw.
  ui: ['ink', 'react', 'react-reconciler', 'yoga-layout'],
};
// Keen's own modules that belong to an island: leaves that only re-export packages of it (a
// re-export keeps the bundle tree-shaking what Keen does not use, as lowlight's other grammars).
const ISLAND_FILES = { 'src/repl/markdown/lowlight-common.ts': 'ui' };
const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** A package name (or scope/*) as a pattern for a specifier: the package or any subpath of it. */
const packagePattern = (name) => (name.endsWith('/*') ? `${name.slice(0, -1)}` : `${name}(/|$)`).replace(/[.]/g, '\\.');
const ISLAND_FILTER = new RegExp(`^(${Object.values(ISLANDS).flat().map(packagePattern).join('|')})`);
const ISLAND_PATTERNS = Object.entries(ISLANDS).map(([name, pkgs]) => [name, new RegExp(`^(${pkgs.map(packagePattern).join('|')})`)]);
const islandOf = (spec) => ISLAND_PATTERNS.find(([, pattern]) => pattern.test(spec))?.[0];
/** Per island, the specifiers the bundle requires (its table in the launcher). */
const islandSpecifiers = Object.fromEntries(Object.keys(ISLANDS).map((name) => [name, new Set()]));
const DEFAULT_IMPORT = (spec) => new RegExp(`import\\s+(?!type\\b)[\\w$]+\\s*(,\\s*\\{[^}]*\\})?\\s*from\\s*['"]${spec.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}['"]`);
const islands = {
  name: 'islands',
  setup(b) {
    b.onResolve({ filter: ISLAND_FILTER }, (args) => {
      const name = islandOf(args.path);
      if (!name) return undefined;
      if (args.kind === 'import-statement' && DEFAULT_IMPORT(args.path).test(readFileSync(args.importer, 'utf8'))) {
        return { errors: [{ text: `default import of ${args.path} in ${args.importer}: import it by name (it is served from the ${name} island)` }] };
      }
      islandSpecifiers[name].add(args.path);
      return { path: args.path, external: true };
    });
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      const file = path
        .relative(ROOT, path.resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts')))
        .split(path.sep)
        .join('/');
      const name = ISLAND_FILES[file];
      if (!name) return undefined;
      const spec = `keen-island:${file}`;
      islandSpecifiers[name].add(spec);
      return { path: spec, external: true };
    });
  },
};

// Keen imports Node's built-in modules by name (`import { join } from 'node:path'`): esbuild then
// emits a plain require, where a default or namespace import copies every export of the module
// into a new object, in each importing module, on every launch. Refused in Keen's own files.
const BY_NAME_EXCEPTIONS = new Set([
  // Picks http or https, net or tls, as values for the tunnel it builds; loads only with a proxy.
  'src/net/connect-tunnel.ts',
]);
const BUILTIN_SPEC = `(?:node:)?(?:${builtinModules.map((m) => m.replace(/[/]/g, '\\/')).join('|')})`;
// `import X from`, `import * as X from`, `import X, {…} from`, `import X, * as Y from`,
// `import { default as X } from`, `export * as X from` (type-only imports compile to nothing).
const WHOLE_BUILTIN = new RegExp(
  String.raw`^\s*(?:import\s+(?!type\b)(?:[\w$]+\s*(?:,\s*(?:\{[^}]*\}|\*\s*as\s+[\w$]+))?|\*\s*as\s+[\w$]+|\{[^}]*\bdefault\b[^}]*\})|export\s+\*\s*as\s+[\w$]+)\s*from\s*['"](${BUILTIN_SPEC})['"]`,
  'm',
);
const builtinsByName = {
  name: 'builtins-by-name',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/].*\.tsx?$/ }, (args) => {
      const file = path.relative(ROOT, args.path).split(path.sep).join('/');
      if (!file.startsWith('src/') || BY_NAME_EXCEPTIONS.has(file)) return undefined;
      const whole = WHOLE_BUILTIN.exec(readFileSync(args.path, 'utf8'));
      if (!whole) return undefined;
      return { errors: [{ text: `${file}: import ${whole[1]} by name (\`import { … } from '${whole[1]}'\`), not whole` }] };
    });
  },
};

// What every script the launcher compiles shares (the bundle and each island): one CommonJS-style
// function expression, ASCII, minified, with source maps.
const SCRIPT_OPTIONS = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  // Prefer packages' ESM builds: unused code can be dropped, and named exports survive import().
  mainFields: ['module', 'main'],
  target: 'node20',
  sourcemap: 'linked',
  minify: true,
  legalComments: 'none',
  jsx: 'automatic',
  // launch.ts reads each script as latin1 (no UTF-8 decoding); checked by writeScript.
  charset: 'ascii',
  external: EXTERNAL,
  // A vm script has no `import()` of its own: esbuild writes each import() of an external package
  // or builtin as a require() (the launcher passes one for each script; Node 20.19+ requires ES
  // modules too). Node's loader for vm scripts (`vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER`)
  // prints an experimental warning, and on Node 20 loses its callback when V8 takes the cached data.
  supported: { 'dynamic-import': false },
  banner: { js: `(function (${BUNDLE_PARAMS.join(', ')}) {` },
  footer: { js: '})' },
  // Free `Headers` / `FormData` in bundled code are Keen's (src/net/fetch-globals.ts): Node's
  // live in undici, whose first load costs ~20 ms on the way to the first request.
  inject: ['src/net/fetch-globals.ts'],
  write: false,
  logLevel: 'warning',
};
const SCRIPT_DEFINE = { 'process.env.NODE_ENV': '"production"', 'import.meta.url': '__keen_import_meta_url' };

/** Writes a build's files; returns the script's text after checking it is ASCII. */
function writeScript(outputFiles, label) {
  let text = '';
  for (const out of outputFiles) {
    if (out.path.endsWith('.cjs')) {
      text = out.text;
      const wide = /[^\x00-\x7f]/.exec(text);
      if (wide) throw new Error(`${label} is not ASCII (launch.ts reads it as latin1): …${text.slice(wide.index - 40, wide.index + 10)}…`);
    }
    writeFileSync(out.path, out.contents);
  }
  return text;
}

const app = await build({
  ...SCRIPT_OPTIONS,
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist/app.cjs',
  define: { ...SCRIPT_DEFINE, KEEN_VERSION: JSON.stringify(pkg.version), KEEN_TOOL_TABLE: JSON.stringify(buildToolTable()) },
  plugins: [builtinsByName, islands, fastStringWidth, yogaAsync, inkWithoutDevtools],
  metafile: true,
});

const bundleText = writeScript(app.outputFiles, 'the bundle');

// Each island: one script whose module.exports maps each specifier the bundle requires to a
// function that initialises and returns that module (a module of an island runs only when asked).
const islandTable = {};
const buildHash = createHash('sha256').update(bundleText);
for (const [name, specs] of Object.entries(islandSpecifiers)) {
  if (specs.size === 0) continue;
  const sorted = [...specs].sort();
  for (const spec of sorted) islandTable[spec] = name;
  const out = await build({
    ...SCRIPT_OPTIONS,
    stdin: {
      contents: `module.exports = {\n${sorted.map((s) => `  ${JSON.stringify(s)}: () => require(${JSON.stringify(s.startsWith('keen-island:') ? `./${s.slice('keen-island:'.length)}` : s)}),`).join('\n')}\n};\n`,
      resolveDir: ROOT,
      sourcefile: `island-${name}.cjs`,
      loader: 'js',
    },
    outfile: `dist/${name}.cjs`,
    define: SCRIPT_DEFINE,
    plugins: [fastStringWidth, yogaAsync, inkWithoutDevtools],
  });
  buildHash.update(writeScript(out.outputFiles, `the ${name} island`));
}

// The launcher (dist/main.js, imported by bin/keen.js): tiny, and carries the bundle's build id,
// which names its code cache.
await build({
  entryPoints: { main: 'src/launch/launch.ts' },
  outdir: 'dist',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  define: {
    KEEN_VERSION: JSON.stringify(pkg.version),
    KEEN_BUILD_ID: JSON.stringify(buildHash.digest('hex').slice(0, 16)),
    KEEN_ISLANDS: JSON.stringify(islandTable),
  },
  logLevel: 'warning',
});

// config.schema.json (shipped in the package, for editors): generated from the zod schema at every
// build, so it can never disagree with what Keen accepts.
const schemaBundle = await build({
  entryPoints: ['src/config/json-schema.ts'],
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  write: false,
  logLevel: 'warning',
});
const { configJsonSchemaText } = await import(`data:text/javascript;base64,${Buffer.from(schemaBundle.outputFiles[0].text).toString('base64')}`);
writeFileSync(new URL('../config.schema.json', import.meta.url), configJsonSchemaText());
