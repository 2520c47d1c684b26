import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { credentialPaths } from '../permissions/protected-paths.js';
import { isInside } from '../permissions/request.js';
import { bwrapArgs } from './bwrap.js';
import { findSandbox, probe, type SandboxAvailability } from './detect.js';
import { seatbeltProfile } from './seatbelt.js';
import type { SandboxPlan, SandboxSettings } from './settings.js';

export { DEFAULT_SANDBOX, type SandboxMode, type SandboxPlan, type SandboxSettings } from './settings.js';
export { findSandbox, type SandboxAvailability } from './detect.js';
export { bwrapArgs } from './bwrap.js';
export { seatbeltProfile } from './seatbelt.js';

/** How to start one command: the program, its arguments, and whether a sandbox confines it. */
export interface Launch {
  file: string;
  args: string[];
  sandboxed: boolean;
  /** Set once per process when a sandbox was wanted but none could be used. */
  notice?: string;
}

function real(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch {
    return undefined;
  }
}

/** The paths a command must not see: KEEN_HOME and the credential folders that exist. */
export function hiddenPaths(home: string, keenHome: string | undefined, cwd: string): { path: string; dir: boolean }[] {
  const out: { path: string; dir: boolean }[] = [];
  for (const p of [...(keenHome ? [keenHome] : []), ...credentialPaths(home)]) {
    const r = real(p);
    if (!r || isInside(r, cwd)) continue;
    out.push({ path: r, dir: fs.statSync(r).isDirectory() });
  }
  return out;
}

/** The sandbox plan for one command. */
export function planFor(settings: SandboxSettings, roots: readonly string[], cwd: string, opts: { home: string; keenHome?: string }): SandboxPlan {
  const tmp = real(os.tmpdir()) ?? os.tmpdir();
  const readOnly = settings.mode === 'read-only';
  const writable = [...new Set(roots.map((r) => real(r) ?? r))];
  return { cwd: real(cwd) ?? cwd, writable, hidden: hiddenPaths(opts.home, opts.keenHome, real(cwd) ?? cwd), network: settings.network, tmp, readOnly };
}

let noticeGiven = false;

/**
 * How to run `command`: inside bubblewrap (Linux) or sandbox-exec (macOS) when the mode asks for a
 * sandbox and one works here, else plain `bash -c`. Where none works, the first launch carries a
 * one-time notice and commands run as with `sandbox.mode: "off"`.
 */
export async function launchFor(
  command: string,
  settings: SandboxSettings,
  roots: readonly string[],
  cwd: string,
  opts: { home: string; keenHome?: string; env: NodeJS.ProcessEnv; platform?: NodeJS.Platform },
): Promise<Launch> {
  const plain: Launch = { file: 'bash', args: ['-c', command], sandboxed: false };
  if (settings.mode === 'off') return plain;
  const avail: SandboxAvailability = findSandbox(opts.platform ?? process.platform, opts.env);
  const problem = avail.kind ? await probe(avail) : avail.missing;
  if (problem || !avail.program) {
    if (noticeGiven) return plain;
    noticeGiven = true;
    return { ...plain, notice: `[no sandbox: ${problem}; commands run without one (as with sandbox.mode "off"). See docs/permissions.md.]` };
  }
  const plan = planFor(settings, roots, cwd, opts);
  if (avail.kind === 'bwrap') return { file: avail.program, args: bwrapArgs(plan, command), sandboxed: true };
  return { file: avail.program, args: ['-p', seatbeltProfile(plan), 'bash', '-c', command], sandboxed: true };
}

/**
 * One line to add when the sandbox seems to have blocked the command: its own error stays, this
 * says why and how to allow it. Undefined when nothing points at the sandbox.
 */
export function blockedNote(output: string, settings: SandboxSettings, hidden: readonly string[]): string | undefined {
  if (/Read-only file system|Operation not permitted/.test(output)) {
    return settings.mode === 'read-only'
      ? '[sandbox: the file system is read-only for commands (sandbox.mode "read-only"); set sandbox.mode to "workspace-write" in your config to let them write the workspace.]'
      : '[sandbox: commands may write only inside the workspace and the temp dir; add a directory with --add-dir, or set sandbox.mode to "off" in your config.]';
  }
  if (!settings.network && /Network is unreachable|Could not resolve host|Temporary failure in name resolution|EAI_AGAIN|getaddrinfo|Name or service not known/.test(output)) {
    return '[sandbox: network access is off for commands; set sandbox.network to true in your config to allow it.]';
  }
  const named = hidden.find((h) => output.includes(h));
  if (named) return `[sandbox: ${named} is hidden from commands (credentials and Keen's own state stay out of reach).]`;
  return undefined;
}

/** The home directory whose credential folders are hidden. */
export function userHome(env: NodeJS.ProcessEnv): string {
  return env.HOME ? path.resolve(env.HOME) : os.homedir();
}
