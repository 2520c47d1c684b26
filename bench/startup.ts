/**
 * Startup: median wall time of `node bin/keen.js --version` against a bare `node -e 0`, measured
 * interleaved in the same run (target: at most 1.3x), and a check that `--version` loads neither
 * Ink/React nor any provider SDK.
 *
 *   npm run build && npx tsx bench/startup.ts [runs]
 *
 * The module check runs `--version` once with a preload (`node --import`) that records every
 * module the ESM loader resolves (through a `module.register` resolve hook) and every CommonJS
 * `require` (by wrapping Module._load), then looks for SDK packages, Ink and React.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { KEEN_BIN, median, requireBuilt, ROOT } from './common.js';

const root = ROOT;
const bin = KEEN_BIN;
const runs = Number(process.argv[2] ?? 15);
requireBuilt();

function timeOnce(args: string[]): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

// Warm the file cache, then interleave so drift on a busy machine hits both sides alike.
timeOnce(['-e', '0']);
timeOnce([bin, '--version']);
const bare: number[] = [];
const keen: number[] = [];
for (let i = 0; i < runs; i++) {
  bare.push(timeOnce(['-e', '0']));
  keen.push(timeOnce([bin, '--version']));
}
const bareMs = median(bare);
const keenMs = median(keen);
const ratio = keenMs / bareMs;

console.log(`startup over ${runs} runs each (median wall time, node ${process.version}):`);
console.log(`  node -e 0             ${bareMs.toFixed(1)} ms  (min ${Math.min(...bare).toFixed(1)}, max ${Math.max(...bare).toFixed(1)})`);
console.log(`  keen --version        ${keenMs.toFixed(1)} ms  (min ${Math.min(...keen).toFixed(1)}, max ${Math.max(...keen).toFixed(1)})`);
console.log(`  ratio                 ${ratio.toFixed(2)}x  (target <= 1.30x) ${ratio <= 1.3 ? 'OK' : 'OVER TARGET'}`);

// ---- what --version loads -------------------------------------------------------------------
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keen-startup-'));
const log = path.join(dir, 'loaded.txt');
fs.writeFileSync(
  path.join(dir, 'hooks.mjs'),
  `import fs from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  fs.appendFileSync(${JSON.stringify(log)}, 'esm ' + r.url + '\\n');
  return r;
}
`,
);
fs.writeFileSync(
  path.join(dir, 'preload.mjs'),
  `import { register, default as Module } from 'node:module';
import fs from 'node:fs';
register(${JSON.stringify(pathToFileURL(path.join(dir, 'hooks.mjs')).href)});
const load = Module._load;
Module._load = function (request, ...rest) {
  fs.appendFileSync(${JSON.stringify(log)}, 'cjs ' + request + '\\n');
  return load.call(this, request, ...rest);
};
`,
);
const traced = spawnSync(process.execPath, ['--import', pathToFileURL(path.join(dir, 'preload.mjs')).href, bin, '--version'], {
  encoding: 'utf8',
});
const loaded = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : [];
fs.rmSync(dir, { recursive: true, force: true });

const FORBIDDEN = /@anthropic-ai|[\\/]openai[\\/]|@aws-sdk|@smithy|genkit|@genkit-ai|[\\/]ink[\\/]|[\\/]react[\\/]|\bcommander\b|\bzod\b/;
const ownFiles = [...new Set(loaded.filter((l) => l.includes(root) && !l.includes('/node_modules/')).map((l) => path.relative(root, l.replace(/^(esm|cjs) (file:\/\/)?/, ''))))];
const packages = loaded.filter((l) => l.includes('/node_modules/'));
const heavy = loaded.filter((l) => FORBIDDEN.test(l));
// Ink and React are bundled into dist chunks, so also check the content of each dist file loaded.
const bundledHeavy = ownFiles
  .filter((f) => f.startsWith('dist/'))
  .filter((f) => /from "ink"|react\.element|Symbol\.for\("react\.|@anthropic-ai\/sdk/.test(fs.readFileSync(path.join(root, f), 'utf8')));

console.log(`\nmodules loaded by \`keen --version\` (exit ${traced.status}, printed ${JSON.stringify(traced.stdout.trim())}):`);
for (const f of ownFiles) console.log(`  ${f}`);
console.log(`  node_modules packages: ${packages.length}`);
const clean = heavy.length === 0 && bundledHeavy.length === 0 && packages.length === 0;
console.log(clean ? '  no Ink, React, commander, zod or provider SDK: OK' : `  HEAVY MODULES LOADED:\n    ${[...heavy, ...bundledHeavy].join('\n    ')}`);

process.exitCode = clean ? 0 : 1;
