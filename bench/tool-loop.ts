/**
 * Memory and per-turn overhead of `keen run` against the loopback Anthropic fake, each run in a
 * fresh KEEN_HOME, interleaved with a bare `node -e 0` spawned the same way:
 *
 * - peak RSS of a one-turn run (target <= 2x bare node's peak) and of a 20-step tool loop (the
 *   fake answers 19 times with a tool call — read_file and list_dir in turn, on a small scratch
 *   project — then with text; target <= 2.5x);
 * - Keen's own wall time per step of that loop: from the fake finishing one response to the next
 *   request reaching it, i.e. the loop's time minus the time the fake spends answering (mean over
 *   the 19 steps of a run; median over runs). Target: <= half the best peer's quoted 33 ms.
 *
 *   npm run build && npx tsx bench/tool-loop.ts [runs]
 *
 * Peak RSS is the kernel's ru_maxrss of the keen process, read by GNU time (/usr/bin/time) from
 * wait4(2) after it exits: nothing is injected into the measured process (see measureSpawn in
 * common.ts). The fake runs in this process; its time per request comes from Node's own HTTP
 * server diagnostics channels (request start → response finish), not from the responder.
 * Peers (Claude Code, Codex, …) cannot run here (no network): their figures are the issue's,
 * labelled as quoted.
 */
import dc from 'node:diagnostics_channel';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startAnthropicFake } from '../test/fakes/anthropic-fake.js';
import type { FakeReply } from '../test/fakes/script.js';
import { cleanEnv, GNU_TIME, KEEN_BIN, type Measured, measureSpawn, median, requireBuilt } from './common.js';

const runs = Number(process.argv[2] ?? 7);
const STEPS = 20;
const FINAL_TEXT = 'Read everything; done.';
/** The figures for the best peer (not measured here). */
const QUOTED_PEER_TURN_MS = 33;
const QUOTED_PEER_PEAK_MIB = 151;
requireBuilt();

// ---- the fake and its own time ------------------------------------------------------------------

interface Exchange {
  start: number;
  finish: number;
}
let exchanges: Exchange[] = [];
const open = new WeakMap<object, Exchange>();
dc.subscribe('http.server.request.start', (m) => {
  const e = { start: performance.now(), finish: 0 };
  open.set((m as { request: object }).request, e);
  exchanges.push(e);
});
dc.subscribe('http.server.response.finish', (m) => {
  const e = open.get((m as { request: object }).request);
  if (e) e.finish = performance.now();
});

const fake = await startAnthropicFake();
let mode: 'one-turn' | 'loop' = 'one-turn';
let served = 0;
fake.setResponder((): FakeReply => {
  served++;
  if (mode === 'one-turn' || served >= STEPS) return { steps: [{ text: mode === 'loop' ? FINAL_TEXT : 'Hello from the fake model.' }] };
  const call = served % 2 ? { name: 'read_file', args: { path: 'src/notes.md' } } : { name: 'list_dir', args: { path: 'src' } };
  return { steps: [{ text: `Step ${served}.` }, { toolCall: { id: `toolu_bench_${served}`, ...call } }] };
});

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'keen-tool-loop-'));
const cwd = path.join(scratch, 'project');
fs.mkdirSync(path.join(cwd, 'src'), { recursive: true });
fs.writeFileSync(path.join(cwd, 'src', 'notes.md'), `# Notes\n\n${'A small file the loop reads.\n'.repeat(40)}`);
fs.writeFileSync(path.join(cwd, 'src', 'main.ts'), 'export const answer = 42;\n');
const env = cleanEnv();

// ---- one measured run ---------------------------------------------------------------------------

interface Sample extends Measured {
  /** Keen's mean wall time per step between the fake's responses (loop runs only). */
  perStepMs?: number;
  /** The first step (it loads the tools' code) and the median of the others. */
  firstStepMs?: number;
  laterStepMs?: number;
}

let runNo = 0;
async function keen(kind: 'one-turn' | 'loop'): Promise<Sample> {
  mode = kind;
  served = 0;
  exchanges = [];
  const from = fake.requests.length;
  const home = path.join(scratch, `home-${runNo++}`);
  const prompt = kind === 'loop' ? 'read the notes and list the sources, again and again' : 'say hello';
  const r: Sample = await measureSpawn([KEEN_BIN, 'run', prompt], {
    cwd,
    env: { ...env, KEEN_HOME: home, ANTHROPIC_API_KEY: 'sk-bench-fake', ANTHROPIC_BASE_URL: fake.url },
  });
  const expected = kind === 'loop' ? STEPS : 1;
  const wanted = kind === 'loop' ? FINAL_TEXT : 'Hello from the fake model.';
  if (r.code !== 0 || !r.stdout.includes(wanted)) throw new Error(`keen run (${kind}) exited ${r.code}: ${r.stderr.trim()}`);
  if (fake.requests.length - from !== expected || exchanges.length !== expected) {
    throw new Error(`keen run (${kind}) sent ${fake.requests.length - from} requests, expected ${expected}`);
  }
  if (kind === 'loop') {
    checkToolResults(fake.requests[fake.requests.length - 1].body);
    const gaps = exchanges.slice(1).map((e, i) => e.start - exchanges[i].finish);
    r.perStepMs = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    r.firstStepMs = gaps[0];
    r.laterStepMs = median(gaps.slice(1));
  }
  fs.rmSync(home, { recursive: true, force: true });
  return r;
}

/** The last request carries 19 tool results, none an error: the loop did the work it claims. */
function checkToolResults(body: { messages?: { content?: unknown }[] }): void {
  const results = (body.messages ?? []).flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b: { type?: string }) => b.type === 'tool_result');
  const failed = results.filter((b: { is_error?: boolean }) => b.is_error);
  if (results.length !== STEPS - 1 || failed.length > 0) throw new Error(`the loop's last request holds ${results.length} tool results, ${failed.length} of them errors`);
}

// ---- the runs -----------------------------------------------------------------------------------

const mib = (kib: number) => kib / 1024;
const stats = (xs: number[]) => ({ med: median(xs), min: Math.min(...xs), max: Math.max(...xs) });

try {
  await keen('one-turn'); // warm the file cache
  await keen('loop');
  const bare: Measured[] = [];
  const one: Sample[] = [];
  const loop: Sample[] = [];
  for (let i = 0; i < runs; i++) {
    bare.push(await measureSpawn(['-e', '0'], { cwd, env }));
    one.push(await keen('one-turn'));
    loop.push(await keen('loop'));
  }

  console.log(`keen run against the loopback Anthropic fake, ${runs} runs each, interleaved (median, node ${process.version}):`);
  if (bare[0].peakKiB === undefined) {
    console.log(`  peak RSS: skipped (${GNU_TIME} not found; on Debian: apt-get install time)`);
  } else {
    const bareKiB = median(bare.map((s) => s.peakKiB ?? NaN));
    const row = (name: string, xs: Sample[], target: number, quoted?: number) => {
      const s = stats(xs.map((x) => mib(x.peakKiB ?? NaN)));
      const ratio = s.med / mib(bareKiB);
      const vsPeer = quoted ? `; ${(s.med / quoted).toFixed(2)}× the best peer's quoted ${quoted} MiB` : '';
      console.log(
        `  ${name} ${s.med.toFixed(1).padStart(6)} MiB  ${ratio.toFixed(2)}× bare node (target ≤ ${target}×) ${ratio <= target ? 'OK' : 'OVER TARGET'}  (min ${s.min.toFixed(1)}, max ${s.max.toFixed(1)})${vsPeer}`,
      );
    };
    console.log('peak RSS (ru_maxrss from GNU time):');
    row('one-turn run       ', one, 2);
    row(`${STEPS}-step tool loop  `, loop, 2.5, QUOTED_PEER_PEAK_MIB);
    console.log(`  bare node -e 0      ${mib(bareKiB).toFixed(1).padStart(6)} MiB`);
  }

  const step = stats(loop.map((s) => s.perStepMs ?? NaN));
  const stepTarget = QUOTED_PEER_TURN_MS / 2;
  console.log(`per-step overhead of the ${STEPS}-step loop (Keen's wall time between the fake's response and the next request):`);
  console.log(
    `  ${step.med.toFixed(1).padStart(6)} ms per step  (min ${step.min.toFixed(1)}, max ${step.max.toFixed(1)}); ${(step.med / QUOTED_PEER_TURN_MS).toFixed(2)}× the best peer's quoted ${QUOTED_PEER_TURN_MS} ms (target ≤ ${stepTarget} ms) ${step.med <= stepTarget ? 'OK' : 'OVER TARGET'}`,
  );
  const first = median(loop.map((s) => s.firstStepMs ?? NaN));
  const later = median(loop.map((s) => s.laterStepMs ?? NaN));
  console.log(`  of which: the first step ${first.toFixed(1)} ms (loads the tools' code), a later step ${later.toFixed(1)} ms (median)`);
  const bareMs = median(bare.map((s) => s.wallMs));
  const oneMs = median(one.map((s) => s.wallMs));
  const loopMs = median(loop.map((s) => s.wallMs));
  console.log(
    `  whole runs: one-turn ${oneMs.toFixed(0)} ms (${(oneMs / bareMs).toFixed(2)}× bare node), ${STEPS}-step loop ${loopMs.toFixed(0)} ms; (loop − one-turn) / ${STEPS - 1} = ${((loopMs - oneMs) / (STEPS - 1)).toFixed(1)} ms per extra step, fake included`,
  );
  if (bare[0].cpuMs !== undefined) {
    const oneCpu = median(one.map((s) => s.cpuMs ?? NaN));
    const loopCpu = median(loop.map((s) => s.cpuMs ?? NaN));
    console.log(
      `  CPU (user + sys, 10 ms resolution): one-turn ${oneCpu.toFixed(0)} ms, loop ${loopCpu.toFixed(0)} ms; ${((loopCpu - oneCpu) / (STEPS - 1)).toFixed(1)} ms per extra step`,
    );
  }
  console.log(`  bare node -e 0      ${bareMs.toFixed(1)} ms wall`);
} finally {
  await fake.close();
  fs.rmSync(scratch, { recursive: true, force: true });
}
