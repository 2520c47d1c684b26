/**
 * Time to first byte of `keen run "…"` against the loopback Anthropic fake: from spawn to the
 * first byte on stdout (the first text delta), with the time the request reached the fake and the
 * time to exit alongside. Medians over N runs, each in a fresh KEEN_HOME (a new session), sharing
 * one compile cache as a user's runs do; every third run is repeated without one (a first run).
 *
 *   npm run build && npx tsx bench/first-byte.ts [runs]
 *
 * KEEN_BENCH_NODE=<node binary> runs keen and the bare node with that Node (e.g. 24 or 26 from
 * the registry's `node` package); KEEN_BENCH_BIN=<bin/keen.js> launches another checkout, and
 * KEEN_BENCH_AB=<bin/keen.js> runs a second one interleaved with it, run for run (A/B).
 * KEEN_BENCH_CPU=1 also reports each process's CPU time (user + system, `process.cpuUsage()` at
 * exit through a `-r` preload, bare node included): the figure a busy machine moves least.
 * KEEN_BENCH_TTFT=<ms> makes the fake wait that long before it answers, as a real model does:
 * work Keen does while the request is in flight then shows in "request → first byte".
 *
 * The single-build run also prints a floor under the request line: "node + the run's built-ins",
 * a script that only loads the Node built-in modules keen had loaded when its request started
 * (beyond those of a bare node). What is above that line is Keen's own code; what is below it
 * is Node's price for the modules any HTTPS client of this shape loads.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startAnthropicFake } from '../test/fakes/anthropic-fake.js';
import { abLine, abOrder, BENCH_NODE, KEEN_BIN, KEEN_BIN_B, median, requireBuilt } from './common.js';

const runs = Number(process.argv[2] ?? 15);
requireBuilt();

const fake = await startAnthropicFake();
let requestAt = 0;
const ttft = Number(process.env.KEEN_BENCH_TTFT ?? 0);
fake.setResponder(() => {
  requestAt = performance.now();
  return { steps: [{ text: 'Hello from the fake model.' }], ...(ttft > 0 ? { delayMs: ttft } : {}) };
});

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'keen-first-byte-'));
const cwd = path.join(scratch, 'project');
fs.mkdirSync(cwd);
const env: NodeJS.ProcessEnv = {};
for (const [k, v] of Object.entries(process.env)) if (!/^(ANTHROPIC|OPENAI|AWS|GEMINI|GOOGLE|KEEN|CODEX)_/.test(k)) env[k] = v;

interface Sample {
  request: number;
  firstByte: number;
  exit: number;
  /** CPU time of the process (KEEN_BENCH_CPU), else NaN. */
  cpu: number;
}

const CPU = process.env.KEEN_BENCH_CPU === '1';
const cpuPreload = path.join(scratch, 'cpu-preload.cjs');
const CPU_PRELOAD = `process.on('exit', () => {
  const u = process.cpuUsage();
  require('fs').writeFileSync(process.env.KEEN_BENCH_CPU_OUT, String((u.user + u.system) / 1000));
});
`;
if (CPU) fs.writeFileSync(cpuPreload, CPU_PRELOAD);
/** Writes the built-ins loaded when the first request starts (node:http, or fetch's undici). */
const MODULES_PRELOAD = `const out = process.env.KEEN_BENCH_MODULES_OUT;
let written = false;
const write = () => {
  if (written) return;
  written = true;
  require('fs').writeFileSync(out, JSON.stringify(process.moduleLoadList));
};
const dc = require('diagnostics_channel');
dc.subscribe('http.client.request.start', write);
dc.subscribe('undici:request:create', write);
`;
let cpuRun = 0;
/** Node's arguments and environment for one process: the CPU preload when KEEN_BENCH_CPU is set. */
function measured(args: string[], env: NodeJS.ProcessEnv): { args: string[]; env: NodeJS.ProcessEnv; cpu: () => number } {
  if (!CPU) return { args, env, cpu: () => NaN };
  const out = path.join(scratch, `cpu-${cpuRun++}`);
  return { args: ['-r', cpuPreload, ...args], env: { ...env, KEEN_BENCH_CPU_OUT: out }, cpu: () => Number(fs.readFileSync(out, 'utf8')) };
}

/** Warm runs share one compile cache (Node ≥ 22: src/launch/compile-cache.ts); a cold run gets an empty one. */
const warmCache = path.join(scratch, 'compile-cache');
const warmCacheB = path.join(scratch, 'compile-cache-b');

function once(i: number | string, compileCache = warmCache, bin = KEEN_BIN, nodeArgs: string[] = [], extraEnv: NodeJS.ProcessEnv = {}): Promise<Sample> {
  const home = path.join(scratch, `home-${i}`);
  requestAt = 0;
  return new Promise((resolve, reject) => {
    const start = performance.now();
    let firstByte = 0;
    let stdout = '';
    let stderr = '';
    const m = measured([...nodeArgs, bin, 'run', 'say hello'], {
      ...env,
      ...extraEnv,
      KEEN_HOME: home,
      KEEN_COMPILE_CACHE: compileCache,
      ANTHROPIC_API_KEY: 'sk-bench-fake',
      ANTHROPIC_BASE_URL: fake.url,
    });
    const child = spawn(BENCH_NODE, m.args, { cwd, env: m.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => {
      if (!firstByte) firstByte = performance.now() - start;
      stdout += d;
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const exit = performance.now() - start;
      if (code !== 0 || !stdout.includes('Hello from the fake model.')) {
        reject(new Error(`keen run exited ${code}: ${stderr.trim()}`));
        return;
      }
      resolve({ request: requestAt - start, firstByte, exit, cpu: m.cpu() });
    });
  });
}

const bareCpu: number[] = [];
/** A bare `node -e 0`, spawned the same way: the floor every ratio below is measured against. */
function bareNode(args = ['-e', '0'], cpuInto: number[] | undefined = bareCpu): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const m = measured(args, env);
    const child = spawn(BENCH_NODE, m.args, { cwd, env: m.env, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => {
      cpuInto?.push(m.cpu());
      resolve(performance.now() - start);
    });
  });
}

try {
  if (KEEN_BIN_B) await abRuns(KEEN_BIN_B);
  else await singleRuns();
} finally {
  await fake.close();
  fs.rmSync(scratch, { recursive: true, force: true });
}

/** The built-in modules (`process.moduleLoadList`'s `NativeModule` entries) a process had loaded. */
function nativeModules(list: readonly string[]): string[] {
  return list.filter((e) => e.startsWith('NativeModule ')).map((e) => e.slice('NativeModule '.length));
}

/**
 * Writes the floor script: it requires, in load order, each built-in keen had loaded when its
 * request started that a bare node has not (internal ones through `--expose-internals`; entry
 * points and bootstrap modules are left out, and a module that refuses to load alone is skipped).
 */
async function writeBuiltinsFloor(): Promise<string> {
  const keenOut = path.join(scratch, 'modules-keen.json');
  const bareOut = path.join(scratch, 'modules-bare.json');
  const preload = path.join(scratch, 'modules-preload.cjs');
  fs.writeFileSync(preload, MODULES_PRELOAD);
  await once('modules', warmCache, KEEN_BIN, ['-r', preload], { KEEN_BENCH_MODULES_OUT: keenOut });
  await bareNode(['-e', `require('fs').writeFileSync(${JSON.stringify(bareOut)}, JSON.stringify(process.moduleLoadList))`], undefined);
  const bare = new Set(nativeModules(JSON.parse(fs.readFileSync(bareOut, 'utf8'))));
  const extra = nativeModules(JSON.parse(fs.readFileSync(keenOut, 'utf8'))).filter((id) => !bare.has(id) && !/^internal\/(main|bootstrap)\//.test(id));
  const script = path.join(scratch, 'builtins-floor.cjs');
  fs.writeFileSync(script, `for (const id of ${JSON.stringify(extra)}) { try { require(id); } catch {} }\n`);
  return script;
}

async function singleRuns(): Promise<void> {
  await once(-1); // warm the file cache, and write the compile cache
  const floorScript = await writeBuiltinsFloor();
  const samples: Sample[] = [];
  const cold: Sample[] = [];
  const bare: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < runs; i++) {
    bare.push(await bareNode());
    floor.push(await bareNode(['--expose-internals', floorScript], undefined));
    samples.push(await once(i));
    // Every third run also without a compile cache: a new install's first run of a command.
    if (i % 3 === 0) cold.push(await once(runs + i, path.join(scratch, `cold-cache-${i}`)));
  }
  const bareMs = median(bare);
  const col = (pick: (s: Sample) => number, from = samples) => {
    const xs = from.map(pick);
    return `${median(xs).toFixed(1).padStart(6)} ms  ${(median(xs) / bareMs).toFixed(2)}× bare node  (min ${Math.min(...xs).toFixed(1)}, max ${Math.max(...xs).toFixed(1)})`;
  };
  console.log(`keen run against the loopback Anthropic fake, ${runs} runs (median, ${nodeName()}):`);
  console.log(`  request reaches the fake   ${col((s) => s.request)}`);
  console.log(`  first byte on stdout       ${col((s) => s.firstByte)}`);
  const afterRequest = median(samples.map((s) => s.firstByte - s.request));
  console.log(`  request → first byte       ${afterRequest.toFixed(1).padStart(6)} ms${ttft > 0 ? ` (the fake waits ${ttft} ms)` : ''}`);
  console.log(`  process exit               ${col((s) => s.exit)}`);
  console.log(`  bare node -e 0             ${bareMs.toFixed(1).padStart(6)} ms`);
  const floorMs = median(floor);
  console.log(`  node + the run's built-ins ${floorMs.toFixed(1).padStart(6)} ms  ${(floorMs / bareMs).toFixed(2)}× bare node  (Node's share of the request line)`);
  const cpuMs = median(samples.map((s) => s.cpu));
  if (CPU) console.log(`  CPU to exit                ${cpuMs.toFixed(1).padStart(6)} ms  (bare node ${median(bareCpu).toFixed(1)} ms)`);
  console.log(`first run of a new install (no compile cache yet), ${cold.length} runs:`);
  console.log(`  request reaches the fake   ${col((s) => s.request, cold)}`);
  console.log(`  process exit               ${col((s) => s.exit, cold)}  (writes the cache)`);
}

/** KEEN_BENCH_BIN (A) and KEEN_BENCH_AB (B) run for run, alternating which goes first. */
async function abRuns(binB: string): Promise<void> {
  const A = { bin: KEEN_BIN, cache: warmCache, warm: [] as Sample[], cold: [] as Sample[] };
  const B = { bin: binB, cache: warmCacheB, warm: [] as Sample[], cold: [] as Sample[] };
  await once('warm-a', A.cache, A.bin);
  await once('warm-b', B.cache, B.bin);
  const bare: number[] = [];
  for (let i = 0; i < runs; i++) {
    bare.push(await bareNode());
    for (const side of abOrder(i, A, B)) side.warm.push(await once(`${i}-${side === A ? 'a' : 'b'}`, side.cache, side.bin));
    if (i % 3 === 0) {
      for (const side of abOrder(i, A, B)) {
        const tag = `${i}-${side === A ? 'a' : 'b'}`;
        side.cold.push(await once(`cold-${tag}`, path.join(scratch, `cold-cache-${tag}`), side.bin));
      }
    }
  }
  const bareMs = median(bare);
  const line = (label: string, from: 'warm' | 'cold', key: keyof Sample) =>
    abLine(
      label,
      A[from].map((s) => s[key]),
      B[from].map((s) => s[key]),
      bareMs,
    );
  console.log(`keen run against the loopback Anthropic fake, A/B interleaved, ${runs} runs each (median, ${nodeName()}${ttft > 0 ? `, the fake waits ${ttft} ms` : ''}):`);
  console.log(`  A = ${A.bin}\n  B = ${B.bin}`);
  console.log(line('request reaches the fake', 'warm', 'request'));
  console.log(line('first byte on stdout', 'warm', 'firstByte'));
  const afterRequest = (side: typeof A) => side.warm.map((s) => s.firstByte - s.request);
  const toExit = (side: typeof A) => side.warm.map((s) => s.exit - s.request);
  console.log(abLine('request → first byte', afterRequest(A), afterRequest(B), bareMs).replace(/ \([0-9.]+×\)/g, ''));
  console.log(line('process exit', 'warm', 'exit'));
  console.log(abLine('request → exit', toExit(A), toExit(B), bareMs).replace(/ \([0-9.]+×\)/g, ''));
  console.log(`  bare node -e 0             ${bareMs.toFixed(1)} ms`);
  if (CPU) {
    const cpuBare = median(bareCpu);
    console.log(
      abLine(
        'CPU to exit',
        A.warm.map((s) => s.cpu),
        B.warm.map((s) => s.cpu),
        cpuBare,
      ),
    );
    console.log(`  bare node -e 0, CPU        ${cpuBare.toFixed(1)} ms (the CPU line's ratios are to it)`);
  }
  console.log(`first run of a new install (no compile cache yet), ${A.cold.length} runs each:`);
  console.log(line('request reaches the fake', 'cold', 'request'));
  console.log(line('process exit', 'cold', 'exit'));
}

function nodeName(): string {
  return BENCH_NODE === process.execPath ? `node ${process.version}` : BENCH_NODE;
}
