/**
 * Child process for test/transcript/crash.test.ts (bundled to .mjs by the test).
 *
 *   node crash-child.mjs <home> <cwd> <session-id> <fsync: on|off>
 *
 * Opens the session (repairing a damaged tail) and appends batches of 1–4 records (up to ~6 MB)
 * as fast as it can until it is killed. Each record's content is `<tag> <i>/<size> <padding>`; after a batch is
 * durable it prints `ok <tag> <size>` so the parent knows which batches must survive the kill.
 */
import { SessionStore } from '../../src/transcript/store.js';
import type { NewRecord } from '../../src/transcript/records.js';

const PADS = [0, 2_000, 3_000_000, 30_000, 600_000];
const [home, cwd, id, fsync] = process.argv.slice(2);
const { store } = await SessionStore.open(home, cwd, id, { fsync: fsync !== 'off' });
process.stdout.write('ready\n');
for (let n = 0; ; n++) {
  const size = 1 + (n % 4);
  const tag = `${process.pid}-${n}`;
  // From a few bytes to ~6 MB per batch: a SIGKILL that lands inside a big write() tears it.
  const pad = 'p'.repeat(PADS[n % PADS.length]);
  const records: NewRecord[] = [];
  for (let i = 1; i <= size; i++) {
    records.push({ kind: 'user_message', message: { role: 'user', content: `${tag} ${i}/${size} ${pad}` } });
  }
  await store.appendBatch(records);
  process.stdout.write(`ok ${tag} ${size}\n`);
}
