import { lstatSync, realpathSync } from 'node:fs';
import { dirname, join, basename, sep } from 'node:path';
import { keenHome } from '../../config/paths.js';
import { credentialStores, storeHolding, type CredentialStore } from '../credential-stores.js';
import type { PermissionGate, PermissionRequest } from '../types.js';
import { rootsOf, type Policy } from './decide.js';
import { refusal, type ExplainingGate } from './gates.js';
import { namesExplicitly, ruleMatches } from './rules.js';

/**
 * The file tools and credential stores: a call whose paths lie in a store (src/tools/credential-stores.ts)
 * is refused before the permission gate is asked — `--yolo`, a mode or a broad rule does not
 * open it — unless an allow rule of the user's own config, `--allowed-tools` or a session answer
 * names the store (`read_file(~/.aws/credentials)`, `read_file(~/.aws/**)`). The sandbox hides the
 * same list from commands.
 */

/**
 * `p` with its existing part's symlinks resolved (request paths are real). Resolved afresh on
 * every call, so a store created or replaced by a symlink later is seen; `known` shares the
 * parents' answers within one call (most stores are missing and share `~` or `~/.config`).
 */
function realish(p: string, known: Map<string, string>): string {
  const hit = known.get(p);
  if (hit !== undefined) return hit;
  let out: string | undefined;
  try {
    // Most stores are missing: lstat says so without the cost of a thrown error.
    if (lstatSync(p, { throwIfNoEntry: false })) out = realpathSync.native(p);
  } catch {
    out = undefined;
  }
  if (out === undefined) {
    const parent = dirname(p);
    out = parent === p ? p : join(realish(parent, known), basename(p));
  }
  known.set(p, out);
  return out;
}

/** The user's credential stores, real paths. */
export function realStores(home: string, env: NodeJS.ProcessEnv = process.env): CredentialStore[] {
  const known = new Map<string, string>();
  return credentialStores(home, env, keenHome(env)).map((s) => ({ ...s, path: realish(s.path, known) }));
}

/** The one-line refusal for `request`, or undefined when none of its paths is in a store (or a rule names it). */
export function credentialRefusal(request: PermissionRequest, policy: Policy | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!request.paths?.length) return undefined;
  const stores = realStores(policy?.home ?? env.HOME ?? '/', env);
  for (const p of request.paths) {
    const store = storeHolding(p, stores);
    if (!store) continue;
    const segment = basename(store.path);
    const roots = policy ? rootsOf(request, policy) : [];
    const named = policy?.allow.some((e) => e.source !== 'project' && namesExplicitly(e.rule, segment) && ruleMatches(e.rule, { ...request, paths: [p] }, roots, 'every'));
    if (named) continue;
    return `Refusing ${request.tool} on ${p}: it is a credential store, hidden from the tools and from commands; to open it, name it in an allow rule of your own config, e.g. "read_file(${p.split(sep).join('/')})".`;
  }
  return undefined;
}

/** `gate` with the credential-store check in front of it. */
export function guardCredentials(gate: PermissionGate): ExplainingGate {
  const inner = gate as ExplainingGate;
  const refused = new WeakMap<PermissionRequest, string>();
  return {
    policy: inner.policy,
    additionalDirs: inner.additionalDirs,
    check(request) {
      const why = credentialRefusal(request, inner.policy);
      if (why) {
        refused.set(request, why);
        return Promise.resolve('deny');
      }
      return gate.check(request);
    },
    denialMessage(request) {
      const why = refused.get(request);
      if (why) return why;
      if (typeof inner.denialMessage === 'function') return inner.denialMessage(request);
      return refusal(request, { verdict: 'deny', reason: { kind: 'needs-approval' } }, true);
    },
  };
}
