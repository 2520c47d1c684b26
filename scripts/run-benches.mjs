// Runs every bench/*.ts in turn (each prints its own medians and ratios); `npm run bench -- NAME…`
// runs those whose file name contains a NAME. bench/common.ts is their shared helper, not a bench.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const HELPERS = new Set(['common.ts']);
const only = process.argv.slice(2);
const benches = readdirSync(new URL('../bench/', import.meta.url)).filter((f) => f.endsWith('.ts') && !HELPERS.has(f) && (only.length === 0 || only.some((o) => f.includes(o))));
let failed = 0;
for (const file of benches.sort()) {
  process.stdout.write(`\n=== bench/${file} ===\n`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', `bench/${file}`], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
