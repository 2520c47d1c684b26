/**
 * Reads the payload of a JWT without verifying it: Keen only needs the expiry and the ChatGPT
 * account claim of tokens it received over TLS from the issuer itself.
 */
export function jwtClaims(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length < 2 || !parts[1]) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    return claims && typeof claims === 'object' ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Expiry in epoch milliseconds, or undefined when the token is not a JWT with `exp`. */
export function jwtExpiryMs(token: string): number | undefined {
  const exp = jwtClaims(token)?.exp;
  return typeof exp === 'number' ? exp * 1000 : undefined;
}

const CHATGPT_AUTH_CLAIM = 'https://api.openai.com/auth';

/** The ChatGPT account (workspace) id the Codex backend expects in `chatgpt-account-id`. */
export function chatgptAccountId(token: string | undefined): string | undefined {
  if (!token) return undefined;
  const auth = jwtClaims(token)?.[CHATGPT_AUTH_CLAIM];
  const id = auth && typeof auth === 'object' ? (auth as Record<string, unknown>).chatgpt_account_id : undefined;
  return typeof id === 'string' && id ? id : undefined;
}

export function jwtEmail(token: string | undefined): string | undefined {
  const email = token ? jwtClaims(token)?.email : undefined;
  return typeof email === 'string' ? email : undefined;
}
