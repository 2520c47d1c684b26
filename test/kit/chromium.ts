/**
 * Tests and the machine's headless Chromium (Debian's `chromium`, installed by `.ci/run`). On a
 * machine without it the browser tests skip, naming why; with KEEN_REQUIRE_SANDBOX=1 (set by
 * `.ci/run` after installing its packages) a missing browser fails them instead.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { it } from 'vitest';

const found = spawnSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' });
/** The chromium binary, or undefined when the machine has none. */
export const CHROMIUM: string | undefined = found.status === 0 ? found.stdout.trim() || undefined : undefined;

const skipReason = !CHROMIUM && process.env.KEEN_REQUIRE_SANDBOX !== '1' ? 'no chromium on PATH (apt-get install chromium)' : undefined;

/** An `it` that needs headless Chromium (skipped, with the reason in its name, on a machine without it). */
export function itChromium(name: string, fn: () => Promise<void> | void, timeout?: number): void {
  it.skipIf(skipReason !== undefined)(skipReason ? `${name} [skipped: ${skipReason}; KEEN_REQUIRE_SANDBOX=1 fails instead]` : name, fn, timeout);
}

/** Where browser tests keep their screenshots (gitignored; docs/export.md names it). */
export const ARTIFACTS_DIR = path.resolve(import.meta.dirname, '../../test-artifacts');

export interface ChromiumRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Loads `file` in headless Chromium with a fresh profile and no background networking, logging to
 * stderr; `extra` adds `--dump-dom` or `--screenshot=…`.
 */
export function runChromium(file: string, extra: string[]): Promise<ChromiumRun> {
  if (!CHROMIUM) throw new Error('chromium is not installed: `apt-get install chromium` (.ci/run installs it)');
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'keen-chromium-'));
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    `--user-data-dir=${profile}`,
    '--enable-logging=stderr',
    '--v=0',
    '--window-size=1200,2000',
    ...extra,
    `file://${file}`,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(CHROMIUM, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      fs.rmSync(profile, { recursive: true, force: true });
      resolve({ code, stdout, stderr });
    });
  });
}

/** The page's console output in Chromium's log: messages, uncaught errors, CSP refusals. */
export function consoleLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => /:CONSOLE[:(\]]|Uncaught/.test(l));
}
