/**
 * One compile cache for every `bin/keen.js` the tests spawn (src/launch/compile-cache.ts), in a
 * temporary directory instead of the user's ~/.cache: the first spawn of each command writes it,
 * the rest launch from it as users do. Tests of the cache itself set their own KEEN_COMPILE_CACHE.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keen-test-compile-cache-'));
  process.env.KEEN_COMPILE_CACHE = dir;
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
