/**
 * `${VAR}` and `${VAR:-default}` expansion for MCP server entries. Pure: the environment is
 * passed in. A variable that is unset and has no default is reported, not replaced by "".
 */
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export interface Expanded {
  value: string;
  /** Names of referenced variables that are unset and have no default. */
  missing: string[];
  /** Names `refuse` turned down: not expanded (nothing in their place, not even the default). */
  refused: string[];
}

/** Expand `${VAR}` references in `text` from `env`; a name `refuse` holds is never expanded. */
export function expandVars(text: string, env: NodeJS.ProcessEnv, refuse: (name: string) => boolean = () => false): Expanded {
  const missing: string[] = [];
  const refused: string[] = [];
  const value = text.replace(REFERENCE, (_all, name: string, fallback: string | undefined) => {
    if (refuse(name)) {
      refused.push(name);
      return '';
    }
    const v = env[name];
    if (v !== undefined && v !== '') return v;
    if (fallback !== undefined) return fallback;
    missing.push(name);
    return '';
  });
  return { value, missing, refused };
}
