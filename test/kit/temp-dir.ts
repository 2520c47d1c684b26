/**
 * Temporary directories for tests, each removed without the test asking: one made in a test (or
 * its `beforeEach`) is removed when that test finishes; one made elsewhere (`beforeAll`, a
 * `describe` body) after the file's last test. Every path is the real path (no symlinked tmpdir),
 * so tests compare it with what Keen resolves. A test that needs a special place (a tmpfs, a
 * directory under HOME, another owner) makes it itself, in plain sight.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';

/** Relative path → content, written with its parent directories. */
export type Files = Record<string, string | Buffer>;

const leftovers = new Set<string>();
/**
 * Removes the directories made outside a test so far. `test/kit/setup.ts` calls it after each
 * file's last test: a hook registered here would run for the first file only where files share
 * their modules (`isolate: false`).
 */
export function removeLeftovers(): void {
  for (const dir of leftovers) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  leftovers.clear();
}
process.once('exit', removeLeftovers);

function track(dir: string): void {
  try {
    onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 }));
  } catch {
    leftovers.add(dir);
  }
}

/** A fresh empty directory under the OS temp dir, named `prefix…`. */
export function tempDir(prefix = 'keen-test-'): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  track(dir);
  return dir;
}

/** Writes `files` under `dir`, making parent directories. */
export function writeFiles(dir: string, files: Files): void {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(dir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}

/** A fresh directory holding `files`: a project folder for tests that need no KEEN_HOME. */
export function tempProject(files: Files = {}, prefix = 'keen-project-'): string {
  const dir = tempDir(prefix);
  writeFiles(dir, files);
  return dir;
}

/**
 * Where a KEEN_HOME goes that does not exist yet (`home` in a fresh temp dir): Keen makes it, as
 * on a first run, so a test can check the modes and layout it makes.
 */
export function tempHome(): string {
  return path.join(tempDir('keen-home-'), 'home');
}

export interface Workspace {
  /** The directory holding both; removing it removes the workspace. */
  root: string;
  /** The project directory Keen runs in (`root/project`; not a git repo). */
  cwd: string;
  /** KEEN_HOME (and HOME, where a test sets it) for the run (`root/home`). */
  home: string;
  /** Removes the workspace now (it is removed anyway, as {@link tempDir} says). */
  cleanup(): void;
}

/** A project directory holding `files` and a KEEN_HOME beside it, both empty otherwise. */
export function tempWorkspace(files: Files = {}): Workspace {
  const root = tempDir('keen-ws-');
  const cwd = path.join(root, 'project');
  const home = path.join(root, 'home');
  fs.mkdirSync(cwd);
  fs.mkdirSync(home);
  writeFiles(cwd, files);
  return { root, cwd, home, cleanup: () => fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 }) };
}
