import { resolve, join, delimiter, sep } from 'node:path';

/**
 * Where credentials live: the one list the sandbox hides from commands (an empty tmpfs over a
 * folder, /dev/null over a file) and the file tools refuse to read or write unless an allow rule
 * in the user's own config names the location (src/tools/fs-guard.ts). Paths are lexical and
 * absolute; whether each exists is the caller's business.
 */
export interface CredentialStore {
  path: string;
  /** A folder (hidden whole) or a single file. */
  dir: boolean;
}

/** Folders below the home folder that hold keys or tokens. */
const HOME_DIRS = ['.ssh', '.gnupg', '.aws', '.config/gcloud', '.azure', '.kube', '.docker', '.config/gh', '.codex', '.password-store', '.local/share/keyrings'];

/** Single files below the home folder. Shell and REPL histories hold pasted tokens and passwords. */
const HOME_FILES = [
  '.netrc',
  '.git-credentials',
  '.config/git/credentials',
  '.npmrc',
  '.yarnrc',
  '.pypirc',
  '.gem/credentials',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.claude/.credentials.json',
  '.gemini/oauth_creds.json',
  '.config/hub',
  '.vault-token',
  '.terraform.d/credentials.tfrc.json',
  '.pgpass',
  '.my.cnf',
  '.Xauthority',
  '.bash_history',
  '.zsh_history',
  '.zhistory',
  '.histfile',
  '.sh_history',
  '.history',
  '.local/share/fish/fish_history',
  '.config/fish/fish_history',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
  '.mysql_history',
  '.sqlite_history',
  '.rediscli_history',
];

/** Environment variables naming a credential folder. */
const ENV_DIRS = ['CODEX_HOME', 'CLOUDSDK_CONFIG', 'AZURE_CONFIG_DIR', 'DOCKER_CONFIG', 'GNUPGHOME', 'PASSWORD_STORE_DIR'];

/** Environment variables naming a credential file (KUBECONFIG is a path list). */
const ENV_FILES = [
  'AWS_SHARED_CREDENTIALS_FILE',
  'AWS_CONFIG_FILE',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'NPM_CONFIG_USERCONFIG',
  'PGPASSFILE',
  'XAUTHORITY',
  'HISTFILE',
  'KUBECONFIG',
];

/**
 * Every credential store of this user: the fixed places below `home`, the ones the environment
 * names (a relative value is resolved against `home`), and Keen's own auth file under `keenHome`.
 */
export function credentialStores(home: string, env: NodeJS.ProcessEnv, keenHome?: string): CredentialStore[] {
  const key = [home, keenHome ?? '', env.KRB5CCNAME ?? '', ...ENV_DIRS.map((n) => env[n] ?? ''), ...ENV_FILES.map((n) => env[n] ?? '')].join('\0');
  if (key !== last?.key) last = { key, stores: listStores(home, env, keenHome) };
  return last.stores.map((s) => ({ ...s }));
}

/** The last list made: the inputs rarely change within a process. */
let last: { key: string; stores: readonly CredentialStore[] } | undefined;

function listStores(home: string, env: NodeJS.ProcessEnv, keenHome?: string): CredentialStore[] {
  const out = new Map<string, CredentialStore>();
  const add = (p: string, dir: boolean) => {
    const abs = resolve(home, p);
    if (!out.has(abs)) out.set(abs, { path: abs, dir });
  };
  for (const d of HOME_DIRS) add(join(home, d), true);
  for (const f of HOME_FILES) add(join(home, f), false);
  for (const name of ENV_DIRS) {
    const v = env[name]?.trim();
    if (v) add(v, true);
  }
  for (const name of ENV_FILES) {
    for (const v of (env[name] ?? '').split(name === 'KUBECONFIG' ? delimiter : '\0')) if (v.trim()) add(v.trim(), false);
  }
  const krb = env.KRB5CCNAME?.trim();
  if (krb && (krb.startsWith('FILE:') || krb.startsWith('/'))) add(krb.replace(/^FILE:/, ''), false);
  if (keenHome) add(join(keenHome, 'auth.json'), false);
  return [...out.values()];
}

/** The store `abs` lies in (or is), or undefined. `stores` should hold real paths. */
export function storeHolding(abs: string, stores: readonly CredentialStore[]): CredentialStore | undefined {
  return stores.find((s) => abs === s.path || (s.dir && abs.startsWith(s.path.endsWith(sep) ? s.path : s.path + sep)));
}
