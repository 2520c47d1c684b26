/**
 * The transport A/B behind docs/performance.md "Hand-written parts": one streamed Anthropic
 * request from a fresh process, through the Anthropic SDK Keen bundles, over each fetch Keen
 * could hand it:
 *   keen     — `sdkFetch` (src/net/http-fetch.ts: node:http, Keen's own Response/Headers);
 *   platform — Node's built-in fetch (the SDK's default);
 *   undici   — undici's fetch with an `EnvHttpProxyAgent` (HTTP(S)_PROXY, NO_PROXY), bundled as
 *              Keen would bundle it for Node 20.19+ (undici is a devDependency for this bench
 *              only; knip.json knows, since the import is inside a generated entry).
 * Each variant is bundled once by esbuild (minified, as dist/ is) and run interleaved with the
 * others, order rotated every round. Reported: spawn → the request at the loopback fake, spawn →
 * exit, and the process's CPU time at exit, medians, with a bare `node -e 0` alongside.
 *
 *   npx tsx bench/fetch-transport.ts [runs]     (KEEN_BENCH_NODE=<node binary> for Node 24/26)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { startAnthropicFake } from '../test/fakes/anthropic-fake.js';
import { BENCH_NODE, median, ROOT } from './common.js';

const runs = Number(process.argv[2] ?? 15);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'keen-fetch-ab-'));

const CLIENT = `
import { BaseAnthropic } from '@anthropic-ai/sdk/client';
import { Messages } from '@anthropic-ai/sdk/resources/messages/messages';
export async function ask(fetch) {
  const client = new Messages(new BaseAnthropic({ apiKey: 'sk-ant-bench', baseURL: process.env.BENCH_URL, fetch, maxRetries: 0 }));
  const stream = await client.create({ model: 'claude-sonnet-5-5', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] });
  let text = '';
  for await (const ev of stream) if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') text += ev.delta.text;
  if (!text) throw new Error('no text');
}
process.on('exit', () => { const u = process.cpuUsage(); process.stdout.write(String((u.user + u.system) / 1000)); });
`;

const VARIANTS: Record<string, string> = {
  keen: `import { ask } from './client.mjs'; import { sdkFetch } from '${path.join(ROOT, 'src/net/http-fetch.ts')}'; await ask(sdkFetch(process.env));`,
  platform: `import { ask } from './client.mjs'; await ask(undefined);`,
  undici: `import { ask } from './client.mjs'; import { fetch, EnvHttpProxyAgent } from 'undici'; const dispatcher = new EnvHttpProxyAgent(); await ask((url, init) => fetch(url, { ...init, dispatcher }));`,
};

fs.writeFileSync(path.join(scratch, 'client.mjs'), CLIENT);
const entries: Record<string, string> = {};
for (const [name, source] of Object.entries(VARIANTS)) {
  fs.writeFileSync(path.join(scratch, `${name}-entry.mjs`), source);
  const out = path.join(scratch, `${name}.mjs`);
  await build({
    entryPoints: [path.join(scratch, `${name}-entry.mjs`)],
    outfile: out,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: true,
    mainFields: ['module', 'main'],
    nodePaths: [path.join(ROOT, 'node_modules')],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: 'error',
  });
  entries[name] = out;
}

const fake = await startAnthropicFake();
let requestAt = 0;
fake.setResponder(() => {
  requestAt = performance.now();
  return { steps: [{ text: 'Hello.' }] };
});

interface Sample {
  request: number;
  exit: number;
  cpu: number;
}

function runOnce(args: string[]): Promise<Sample> {
  return new Promise((resolve, reject) => {
    requestAt = 0;
    const start = performance.now();
    const child = spawn(BENCH_NODE, args, { env: { ...process.env, BENCH_URL: fake.url }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${args.join(' ')} exited ${code}`));
      resolve({ request: requestAt - start, exit: performance.now() - start, cpu: Number(out) });
    });
  });
}

const names = Object.keys(entries);
const samples: Record<string, Sample[]> = Object.fromEntries([...names, 'bare'].map((n) => [n, []]));
for (const name of names) await runOnce([entries[name]]); // one warm-up each (disk cache)
for (let i = 0; i < runs; i++) {
  const order = [...names.slice(i % names.length), ...names.slice(0, i % names.length)];
  for (const name of order) samples[name].push(await runOnce([entries[name]]));
  samples.bare.push(await runOnce(['-e', "process.on('exit',()=>{const u=process.cpuUsage();process.stdout.write(String((u.user+u.system)/1000))})"]));
}
await fake.close();
fs.rmSync(scratch, { recursive: true, force: true });

const bare = median(samples.bare.map((s) => s.exit));
console.log(`one streamed request from a fresh process, ${runs} runs each, interleaved — node ${await nodeVersion()}, load ${os.loadavg()[0].toFixed(1)}`);
console.log(`  bare node -e 0                exit ${bare.toFixed(1)} ms   CPU ${median(samples.bare.map((s) => s.cpu)).toFixed(1)} ms`);
for (const name of names) {
  const s = samples[name];
  const req = median(s.map((x) => x.request));
  const delta = name === 'keen' ? '' : `   request vs keen, paired ${signed(median(s.map((x, k) => x.request - samples.keen[k].request)))} ms`;
  console.log(
    `  ${name.padEnd(9)} request ${req.toFixed(1)} ms (${(req / bare).toFixed(2)}× bare)   exit ${median(s.map((x) => x.exit)).toFixed(1)} ms   CPU ${median(s.map((x) => x.cpu)).toFixed(1)} ms${delta}`,
  );
}

function signed(x: number): string {
  return `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;
}

async function nodeVersion(): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(BENCH_NODE, ['--version']);
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
    });
    child.on('close', () => resolve(out.trim()));
  });
}
