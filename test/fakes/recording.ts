import fs from 'node:fs';
import path from 'node:path';
import type { Recording } from '../../src/providers/kit/record.js';
import type { FakeReply } from './script.js';

/**
 * Recordings made with `KEEN_RECORD=DIR` as scripted replies: each fake answers a recorded
 * exchange with the exact response bytes the real service sent, beside its scripted cases.
 */
export function loadRecordings(dir: string): Recording[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Recording);
}

/** The reply that replays `recording` byte for byte (status, content type, body). */
export function replayOf(recording: Recording): FakeReply {
  return { raw: { status: recording.status, contentType: recording.content_type, body: Buffer.from(recording.response_base64, 'base64') } };
}

/** Waits until `count` recordings exist in `dir` (they are written when each response ends). */
export async function waitForRecordings(dir: string, count: number, timeoutMs = 20_000): Promise<Recording[]> {
  const started = Date.now();
  for (;;) {
    const found = fs.existsSync(dir) ? loadRecordings(dir) : [];
    if (found.length >= count) return found;
    if (Date.now() - started > timeoutMs) throw new Error(`expected ${count} recordings in ${dir}, found ${found.length}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
