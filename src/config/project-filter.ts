import { oneLineText } from '../security/terminal-text.js';
import type { KeenConfig } from './schema.js';
import { TRUST_GATED_KEYS } from './trust.js';

/** What was dropped from a project config, by reason. Field names as in the file. */
export interface ProjectFilterResult {
  config: KeenConfig;
  /** Keys ignored because the folder is not trusted (permissions, and later MCP servers, hooks). */
  untrusted: string[];
  /** `baseURL` / `apiKeyEnv` keys: never read from a project, trusted or not. */
  credentials: string[];
}

const CREDENTIAL_FIELDS = ['baseURL', 'apiKeyEnv'] as const;

/**
 * The part of a project's `.keen/config.json` Keen honours (pure). Base URLs and key variables
 * always come from the user's own config and environment: a cloned repository must not be able
 * to send the user's key (or any variable's value) to a host the user did not name. Keys that
 * run code or send data elsewhere (`TRUST_GATED_KEYS`) count only in a trusted folder.
 */
export function filterProjectConfig(project: KeenConfig, trusted: boolean): ProjectFilterResult {
  const untrusted: string[] = [];
  const credentials: string[] = [];
  const out: Record<string, unknown> = { ...project };
  for (const group of ['models', 'providers'] as const) {
    const entries = project[group] as Record<string, Record<string, unknown> | undefined> | undefined;
    if (!entries) continue;
    const kept: Record<string, Record<string, unknown>> = {};
    for (const [name, entry] of Object.entries(entries)) {
      if (!entry) continue;
      const copy = { ...entry };
      for (const field of CREDENTIAL_FIELDS) {
        if (copy[field] !== undefined) {
          credentials.push(`${group}.${name}.${field}`);
          delete copy[field];
        }
      }
      kept[name] = copy;
    }
    out[group] = kept;
  }
  if (!trusted) {
    // A project's ask and deny rules only ever restrict, so they count untrusted too.
    const permissions = out.permissions as Record<string, unknown> | undefined;
    if (permissions) {
      const gated = Object.fromEntries(GATED_PERMISSION_FIELDS.filter((f) => permissions[f] !== undefined).map((f) => [f, permissions[f]]));
      if (!isEmpty(gated)) untrusted.push(describePermissions(gated));
      const rest = Object.fromEntries(Object.entries(permissions).filter(([f]) => !(GATED_PERMISSION_FIELDS as readonly string[]).includes(f)));
      if (isEmpty(rest)) delete out.permissions;
      else out.permissions = rest;
    }
    for (const key of TRUST_GATED_KEYS) {
      if (key === 'permissions') continue;
      const value = out[key];
      if (value === undefined || isEmpty(value)) {
        delete out[key];
        continue;
      }
      untrusted.push(describeKey(key, value));
      delete out[key];
    }
  }
  return { config: out as KeenConfig, untrusted, credentials };
}

function isEmpty(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  if (value && typeof value === 'object') return Object.values(value).every(isEmpty);
  return false;
}

/** Permission fields that widen what runs: ignored in an untrusted folder. */
const GATED_PERMISSION_FIELDS = ['allow', 'additionalDirectories', 'defaultMode'] as const;

/** `permissions.allow (bash, write_file)`: names the fields and their values (a list's first three). */
function describePermissions(gated: Record<string, unknown>): string {
  return Object.entries(gated)
    .map(([field, value]) => {
      // `defaultMode: bypassPermissions` turns every question off: say so, not just the key.
      if (!Array.isArray(value)) return `permissions.${field} (${String(value)})`;
      const shown = value.slice(0, 3).join(', ') + (value.length > 3 ? ', …' : '');
      return `permissions.${field} (${shown})`;
    })
    .join(', ');
}

function describeKey(key: string, _value: unknown): string {
  return key;
}

/**
 * The one line Keen prints about what it ignored in the project config, or undefined when nothing
 * was ignored. Names the file, the keys and how to trust the folder.
 */
export function projectFilterNotice(file: string, result: Pick<ProjectFilterResult, 'untrusted' | 'credentials'> & { never?: string[] }, userFile: string): string | undefined {
  const parts: string[] = [];
  if (result.untrusted.length > 0) {
    parts.push(`ignored ${result.untrusted.join(', ')} because this folder is not trusted (trust it with \`keen --trust\` or \`keen run --trust …\`; the REPL asks once)`);
  }
  if (result.credentials.length > 0) {
    parts.push(`ignored ${result.credentials.join(', ')}: base URLs and key variables are read only from ${userFile} and the environment`);
  }
  if (result.never?.length) {
    parts.push(`ignored ${result.never.join(', ')}: a project cannot pass Keen's credentials to commands or open the sandbox (set them in ${userFile})`);
  }
  if (parts.length === 0) return undefined;
  // Rules are the repository's text: a line break in one must not start a `keen:` line of its own.
  return oneLineText(`project config ${file}: ${parts.join('; ')}`);
}
