import { randomBytes } from 'node:crypto';
import { realpathSync, readFileSync, mkdirSync, writeFileSync, renameSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { KeenError } from '../errors.js';
import { trustStorePath } from './paths.js';

/**
 * Workspace trust. A project folder is untrusted until the user trusts it: the REPL asks once per
 * folder and remembers the answer here; headless runs use a folder trusted earlier, `--trust`
 * (which trusts and remembers) or `--yolo` (trust for that run only).
 *
 * The store is `$KEEN_HOME/trusted-projects.json` (0600, written atomically), keyed by the real
 * path of the folder, so a symlink cannot borrow another folder's trust:
 *
 *   {"version":1,"projects":{"/home/ann/src/app":{"trusted":true,"at":"2026-12-01T09:00:00.000Z"}}}
 *
 * Consumers (permission rules, MCP servers, hooks) read `projectTrusted` from `loadConfig`'s
 * result, or call `isProjectTrusted` directly, and ignore anything in the project that sends data
 * elsewhere or runs code while it is false.
 */

export interface TrustEntry {
  trusted: boolean;
  /** ISO time of the decision. */
  at: string;
}

interface TrustFile {
  version: 1;
  projects: Record<string, TrustEntry>;
}

/**
 * Top-level project-config keys that send data elsewhere or run code: ignored while the project
 * is untrusted. Add new keys of that kind here (e.g. `mcpServers`, `hooks`).
 */
export const TRUST_GATED_KEYS: readonly string[] = ['permissions', 'sandbox', 'bash', 'hooks'];

/** The real path of `cwd` (the key of the store); the resolved path when it cannot be resolved. */
export function projectKey(cwd: string): string {
  try {
    return realpathSync.native(cwd);
  } catch {
    return resolve(cwd);
  }
}

function readStore(home: string): TrustFile {
  let text: string;
  try {
    text = readFileSync(trustStorePath(home), 'utf8');
  } catch {
    return { version: 1, projects: {} };
  }
  try {
    const raw = JSON.parse(text) as Partial<TrustFile>;
    const projects: Record<string, TrustEntry> = {};
    if (raw && typeof raw.projects === 'object' && raw.projects) {
      for (const [key, value] of Object.entries(raw.projects)) {
        if (value && typeof value === 'object' && typeof (value as TrustEntry).trusted === 'boolean') {
          projects[key] = { trusted: (value as TrustEntry).trusted, at: String((value as TrustEntry).at ?? '') };
        }
      }
    }
    return { version: 1, projects };
  } catch {
    // A damaged store trusts nothing; the next decision rewrites it.
    return { version: 1, projects: {} };
  }
}

/** The recorded decision for the folder, or undefined when the user was never asked. */
export function trustDecision(home: string, cwd: string): TrustEntry | undefined {
  return readStore(home).projects[projectKey(cwd)];
}

/** True only when the user trusted this folder (by its real path). */
export function isProjectTrusted(home: string, cwd: string): boolean {
  return trustDecision(home, cwd)?.trusted === true;
}

/** Record the user's decision for the folder (default: trusted). Atomic; the file is 0600. */
export function trustProject(home: string, cwd: string, trusted = true): void {
  const store = readStore(home);
  store.projects[projectKey(cwd)] = { trusted, at: new Date().toISOString() };
  const file = trustStorePath(home);
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    writeFileSync(tmp, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new KeenError(`cannot record the trust decision in ${file}: ${(err as Error).message}`);
  }
}

/** How the trust of this run was decided. */
export interface TrustInput {
  /** `--trust`: trust the folder and remember it. */
  trustFlag?: boolean;
  /** `--yolo`: trust the folder for this run only. */
  yolo?: boolean;
}

/**
 * Decide whether the project is trusted for this run: `--yolo` (this run), `--trust` (recorded),
 * or a decision recorded earlier.
 */
export function resolveTrust(home: string, cwd: string, input: TrustInput): boolean {
  if (input.trustFlag) {
    if (!isProjectTrusted(home, cwd)) trustProject(home, cwd, true);
    return true;
  }
  if (input.yolo) return true;
  return isProjectTrusted(home, cwd);
}
