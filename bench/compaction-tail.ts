/**
 * Evidence for `compaction.keepRecentTokens`: how big is the newest complete tool exchange?
 * Runs Keen's real read_file, grep and list_dir tools over this repository's own files (the work
 * a coding agent does on a TypeScript project) and prints the estimated tokens of one exchange
 * (assistant call + result): median, p90, p95 and max. One run, no loop: `npx tsx bench/compaction-tail.ts`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { estimateMessage } from '../src/tokens/token-estimator.js';
import { createDefaultRegistry } from '../src/tools/index.js';
import { createHeadlessGate } from '../src/tools/permissions/index.js';
import { ROOT, median } from './common.js';

const registry = createDefaultRegistry();
const ctx = { cwd: ROOT, signal: new AbortController().signal, permissions: createHeadlessGate({ yolo: false, allow: [] }) };

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && /\.(ts|tsx|md)$/.test(d.name))
    .map((d) => path.relative(ROOT, path.join(d.parentPath, d.name)));
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

async function exchange(name: string, args: Record<string, unknown>, id: number): Promise<number> {
  const call = { id: `c${id}`, name, args: JSON.stringify(args) };
  const result = await registry.execute(call, ctx);
  return estimateMessage({ role: 'assistant', content: '', tool_calls: [call] }) + estimateMessage(result);
}

const sizes: Record<string, number[]> = { read_file: [], grep: [], list_dir: [] };
let id = 0;
const files = [...filesUnder('src'), ...filesUnder('test'), ...filesUnder('docs')];
for (const f of files) sizes.read_file.push(await exchange('read_file', { path: f }, id++));
for (const pattern of ['compaction', 'export function', 'import type', 'TODO', 'signal', 'usage']) sizes.grep.push(await exchange('grep', { pattern }, id++));
for (const dir of ['src', 'src/tools', 'test', 'test/e2e', 'docs']) sizes.list_dir.push(await exchange('list_dir', { path: dir }, id++));

for (const [tool, xs] of Object.entries(sizes)) {
  console.log(
    `${tool.padEnd(9)} n=${String(xs.length).padStart(3)}  median ${median(xs).toFixed(0).padStart(6)}  p90 ${String(pct(xs, 0.9)).padStart(6)}  p95 ${String(pct(xs, 0.95)).padStart(6)}  max ${String(Math.max(...xs)).padStart(6)} tokens per exchange`,
  );
}
const all = Object.values(sizes).flat();
console.log(`all       n=${all.length}  median ${median(all).toFixed(0)}  p90 ${pct(all, 0.9)}  p95 ${pct(all, 0.95)}`);
