import fs from 'node:fs';
import path from 'node:path';

/** Shared by the bench scripts: where things are, and the statistics they print. */
export const ROOT = path.resolve(import.meta.dirname, '..');
export const KEEN_BIN = path.join(ROOT, 'bin', 'keen.js');

/** The benches that spawn keen need the bundle; exit with one line when it is missing. */
export function requireBuilt(): void {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'main.js'))) {
    console.error('dist/main.js is missing: run `npm run build` first');
    process.exit(1);
  }
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
