// Bundles the CLI into dist/ so startup does not pay for hundreds of module files.
// Heavy or binary-locating packages stay external and are imported lazily at run time.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

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

// yoga-layout (Ink's layout engine) embeds its wasm as a data: URL and, when a global `fetch`
// exists, decodes it through fetch — which loads Node's whole undici on the REPL's startup path
// (~15 ms) before any request is made. Decode it the way its own loader does without fetch.
const YOGA_FETCH = 'function ya(){return w||"function"!=typeof fetch?';
const yogaWithoutFetch = {
  name: 'yoga-without-fetch',
  setup(b) {
    b.onLoad({ filter: /yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes(YOGA_FETCH)) throw new Error('yoga-layout changed: update yogaWithoutFetch in scripts/build.mjs');
      return { contents: source.replace(YOGA_FETCH, 'function ya(){return w||"function"!=typeof fetch||ua(H)?'), loader: 'js' };
    });
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

await build({
  entryPoints: { main: 'src/cli/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  // Prefer packages' ESM builds: named exports survive a dynamic import() (the AWS SDK's CJS
  // build would arrive as a `default` object) and unused code can be dropped.
  mainFields: ['module', 'main'],
  target: 'node20',
  sourcemap: 'linked',
  minify: true,
  legalComments: 'none',
  jsx: 'automatic',
  define: {
    'process.env.NODE_ENV': '"production"',
    KEEN_VERSION: JSON.stringify(pkg.version),
    KEEN_TOOL_TABLE: JSON.stringify(buildToolTable()),
  },
  // Provider SDKs are bundled: each dynamic import() becomes its own lazily loaded chunk, which
  // loads far faster than the SDK's hundreds of module files (issue: speed). genkit stays external
  // (it resolves plugins and protobuf files at run time), and so does ripgrep (binary path).
  external: ['genkit', '@genkit-ai/*', '@vscode/ripgrep', '@modelcontextprotocol/sdk', 'turndown', 'react-devtools-core'],
  banner: {
    js: "import { createRequire as __keenCreateRequire } from 'node:module'; const require = __keenCreateRequire(import.meta.url);",
  },
  // Free `Headers` / `FormData` in bundled code are Keen's (src/llm/net/fetch-globals.ts): Node's
  // live in undici, whose first load costs ~20 ms on the way to the first request.
  inject: ['src/llm/net/fetch-globals.ts'],
  plugins: [fastStringWidth, yogaWithoutFetch],
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
