// Runs every bench/*.ts in turn (each prints its own medians and ratios).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const only = process.argv.slice(2);
const benches = readdirSync(new URL('../bench', import.meta.url)).filter((f) => f.endsWith('.ts') && (only.length === 0 || only.some((o) => f.includes(o))));
let failed = 0;
for (const file of benches.sort()) {
  process.stdout.write(`\n=== bench/${file} ===\n`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', `bench/${file}`], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
