import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { isCredentialName } from '../security/credential-names.js';
import type { KeenConfig } from './schema.js';

/**
 * What a project's `.keen/config.json` may never set, trusted or not (and `--yolo` or not): trust
 * lets a repository's settings count, it does not let them hand Keen's credentials on or open the
 * sandbox. Pure but for resolving directories against `projectRoot`.
 * - `bash.envPassthrough` entries naming a credential (Keen's provider keys, the user's `apiKeyEnv`
 *   variables, names that look secret): commands would see the key. Other names pass anyway.
 * - `sandbox.network: true`: the network is opened only by the user's own config.
 * - `sandbox.mode` looser than the user's (or the default `workspace-write`): `off` would also
 *   open the network and the credential stores the sandbox hides.
 * - `permissions.additionalDirectories` outside `projectRoot` (given): an extra directory is
 *   writable for commands and not hidden, so `~/.aws` or `/tmp` there would bring a credential
 *   store or the host's sockets back into the sandbox. Directories inside the project pass.
 */
export function stripNeverFromProject(project: KeenConfig, user: KeenConfig, projectRoot?: string): { config: KeenConfig; dropped: string[] } {
  const dropped: string[] = [];
  const out: KeenConfig = { ...project };
  const dirs = project.permissions?.additionalDirectories;
  if (dirs && projectRoot) {
    const outside = dirs.filter((d) => !insideProject(d, projectRoot));
    if (outside.length > 0) {
      dropped.push(`permissions.additionalDirectories (${outside.join(', ')})`);
      out.permissions = { ...project.permissions, additionalDirectories: dirs.filter((d) => !outside.includes(d)) };
    }
  }
  const passthrough = project.bash?.envPassthrough;
  if (passthrough) {
    const names = credentialNamesOf(user);
    const refused = passthrough.filter((n) => isCredentialName(n, names));
    if (refused.length > 0) {
      dropped.push(`bash.envPassthrough (${refused.join(', ')})`);
      out.bash = { ...project.bash, envPassthrough: passthrough.filter((n) => !refused.includes(n)) };
    }
  }
  if (project.sandbox) {
    const sandbox = { ...project.sandbox };
    if (sandbox.network === true) {
      dropped.push('sandbox.network');
      delete sandbox.network;
    }
    if (sandbox.mode !== undefined && STRICTNESS[sandbox.mode] < STRICTNESS[user.sandbox?.mode ?? 'workspace-write']) {
      dropped.push(`sandbox.mode (${sandbox.mode})`);
      delete sandbox.mode;
    }
    out.sandbox = sandbox;
  }
  return { config: out, dropped };
}

const STRICTNESS: Record<'off' | 'workspace-write' | 'read-only', number> = { off: 0, 'workspace-write': 1, 'read-only': 2 };

/** The variables `config` names as holding API keys (`models.*.apiKeyEnv`, `providers.*.apiKeyEnv`). */
export function credentialNamesOf(config: KeenConfig): string[] {
  return [...Object.values(config.models ?? {}), ...Object.values(config.providers ?? {})].flatMap((e) => (e?.apiKeyEnv ? [e.apiKeyEnv] : []));
}

function realOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** Whether `dir` (as `permissions.additionalDirectories` reads it: `~`, relative to the project) lies in `root`, links resolved. */
function insideProject(dir: string, root: string): boolean {
  const expanded = dir === '~' ? homedir() : dir.startsWith('~/') ? join(homedir(), dir.slice(2)) : dir;
  const real = realOr(resolve(root, expanded));
  const top = realOr(resolve(root));
  return real === top || real.startsWith(top + sep);
}
