import { isCredentialName } from '../security/credential-names.js';
import type { KeenConfig } from './schema.js';

/**
 * What a project's `.keen/config.json` may never set, trusted or not (and `--yolo` or not): trust
 * lets a repository's settings count, it does not let them hand Keen's credentials on or open the
 * sandbox. Pure.
 * - `bash.envPassthrough` entries naming a credential (Keen's provider keys, the user's `apiKeyEnv`
 *   variables, names that look secret): commands would see the key. Other names pass anyway.
 * - `sandbox.network: true`: the network is opened only by the user's own config.
 * - `sandbox.mode` looser than the user's (or the default `workspace-write`): `off` would also
 *   open the network and the credential stores the sandbox hides.
 */
export function stripNeverFromProject(project: KeenConfig, user: KeenConfig): { config: KeenConfig; dropped: string[] } {
  const dropped: string[] = [];
  const out: KeenConfig = { ...project };
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
