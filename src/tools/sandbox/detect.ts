import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { capabilityArgs } from './bwrap.js';

export type SandboxKind = 'bwrap' | 'seatbelt';

export interface SandboxAvailability {
  kind?: SandboxKind;
  /** The program to run (bwrap or sandbox-exec). */
  program?: string;
  /** Why there is none, in a few words. */
  missing?: string;
}

/** `name` on PATH, or undefined. Synchronous and cheap: no process is started. */
export function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Which sandbox this system offers (without starting it; see `probe`). */
export function findSandbox(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): SandboxAvailability {
  if (platform === 'linux') {
    const program = onPath('bwrap', env);
    return program ? { kind: 'bwrap', program } : { missing: 'bubblewrap (bwrap) is not installed' };
  }
  if (platform === 'darwin') {
    const program = existsSync('/usr/bin/sandbox-exec') ? '/usr/bin/sandbox-exec' : undefined;
    return program ? { kind: 'seatbelt', program } : { missing: 'sandbox-exec is missing' };
  }
  return { missing: `no sandbox is supported on ${platform}` };
}

const probes = new Map<string, Promise<string | undefined>>();

/** The arguments of the probe: the namespaces and capabilities every sandboxed command gets, and `true`. */
export function probeArgs(): string[] {
  return ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--unshare-net', ...capabilityArgs(), '--', 'true'];
}

/**
 * Start bubblewrap once with a trivial command to learn whether it works here (user namespaces may
 * be disabled). Resolves undefined when it works, else its error line. Cached per program.
 */
export function probe(avail: SandboxAvailability): Promise<string | undefined> {
  if (avail.kind !== 'bwrap' || !avail.program) return Promise.resolve(avail.missing);
  let p = probes.get(avail.program);
  if (!p) {
    p = new Promise((resolve) => {
      const child = spawn(avail.program!, probeArgs(), {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      child.on('error', (e) => resolve(`bubblewrap cannot start: ${e.message}`));
      child.on('close', (code) => resolve(code === 0 ? undefined : `bubblewrap does not work here: ${err.trim().split('\n')[0] || `exit ${code}`}`));
    });
    probes.set(avail.program, p);
  }
  return p;
}
