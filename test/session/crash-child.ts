/**
 * Child process for test/session/crash.test.ts (bundled to .mjs by the test).
 *
 *   node crash-child.mjs <home> <cwd> <session-id> <fsync: on|off>
 *
 * Opens the session (repairing a damaged tail) and appends batches of 1–4 records as fast as it
 * can until it is killed. Each record's content is `<tag> <i>/<size> <padding>`; after a batch is
 * durable it prints `ok <tag> <size>` so the parent knows which batches must survive the kill.
 */
import { SessionStore } from '../../src/session/store.js';
import type { NewRecord } from '../../src/session/records.js';

const [home, cwd, id, fsync] = process.argv.slice(2);
const { store } = await SessionStore.open(home, cwd, id, { fsync: fsync !== 'off' });
process.stdout.write('ready\n');
for (let n = 0; ; n++) {
  const size = 1 + (n % 4);
  const tag = `${process.pid}-${n}`;
  // Sizes from a few bytes to ~96 KB per batch, so some kills land inside a multi-page write().
  const pad = 'p'.repeat(((n * 7919) % 24) * 1024);
  const records: NewRecord[] = [];
  for (let i = 1; i <= size; i++) {
    records.push({ kind: 'user_message', message: { role: 'user', content: `${tag} ${i}/${size} ${pad}` } });
  }
  await store.appendBatch(records);
  process.stdout.write(`ok ${tag} ${size}\n`);
}
