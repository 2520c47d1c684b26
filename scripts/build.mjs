// Bundles the CLI into dist/ so startup does not pay for hundreds of module files.
// Heavy or binary-locating packages stay external and are imported lazily at run time.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

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
  },
  // Provider SDKs are bundled: each dynamic import() becomes its own lazily loaded chunk, which
  // loads far faster than the SDK's hundreds of module files (issue: speed). genkit stays external
  // (it resolves plugins and protobuf files at run time), and so does ripgrep (binary path).
  external: ['genkit', '@genkit-ai/*', '@vscode/ripgrep', '@modelcontextprotocol/sdk', 'turndown', 'undici', 'react-devtools-core'],
  banner: {
    js: "import { createRequire as __keenCreateRequire } from 'node:module'; const require = __keenCreateRequire(import.meta.url);",
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
