/**
 * Which environment variables hold Keen's credentials, by name. A leaf with no imports, so the
 * config layer (a project may not pass them on), the bash tool (commands never see them) and MCP
 * (servers do not inherit them) share one answer.
 */

/** Every provider key Keen knows, AWS secret keys and session tokens. */
export const KEEN_CREDENTIAL_VARS = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'OPENAI_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_BEARER_TOKEN_BEDROCK',
];

/** Names that look secret: `*_KEY`, `*_TOKEN`, `*_SECRET`, `*PASSWORD*`, `*CREDENTIAL*` (any case). */
export const SECRET_NAME = /(_KEY|_TOKEN|_SECRET)$|^(KEY|TOKEN|SECRET)$|PASSWORD|PASSWD|CREDENTIAL/i;

/**
 * True when `name` holds a credential: one of Keen's (`KEEN_CREDENTIAL_VARS`), one the config
 * names as `apiKeyEnv` (`extra`), or one whose name looks secret.
 */
export function isCredentialName(name: string, extra: readonly string[] = []): boolean {
  return KEEN_CREDENTIAL_VARS.includes(name) || extra.includes(name) || SECRET_NAME.test(name);
}
