import { createHash, randomBytes } from 'node:crypto';

/** An RFC 7636 verifier (64 random bytes, base64url) and its S256 challenge. */
export interface Pkce {
  verifier: string;
  challenge: string;
}

export function createPkce(): Pkce {
  const verifier = randomBytes(64).toString('base64url');
  return { verifier, challenge: pkceChallenge(verifier) };
}

export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/** An unguessable OAuth `state`, checked on the callback against cross-site forgery. */
export function randomState(): string {
  return randomBytes(32).toString('base64url');
}
