import { SECRET_NAME } from '../../security/credential-names.js';
import { looksLikeToken } from '../../transcript/redact.js';
import type { ServerSpec } from './servers.js';

/** Header names that carry a credential besides the secret-looking ones (`*_KEY`, `*TOKEN*`…). */
const CREDENTIAL_HEADER = /authorization|cookie|api[-_]?key|token|secret|session|password|auth/i;
/** `Bearer xyz`, `Basic xyz`, `Token xyz`: the token alone may be echoed too. */
const SCHEME = /^[A-Za-z][\w-]*\s+(\S+)$/;

/** A header or `env` value taken for a credential whatever its name. */
const TOKEN_SHAPE = { minChars: 16, letterAndDigit: true };

/**
 * The credential values Keen sends to its MCP servers, from the config: every header whose name
 * says credential (Authorization, X-Api-Key, Cookie…) or whose value looks like a token, with the
 * token of `<scheme> <token>` also on its own; every `env` value whose name looks secret
 * (`SECRET_NAME`) or whose value looks like a token. Pure.
 */
export function mcpCredentialValues(servers: readonly ServerSpec[]): string[] {
  const out: string[] = [];
  for (const spec of servers) {
    const pairs = spec.transport === 'stdio' ? Object.entries(spec.env) : Object.entries(spec.headers);
    const named = spec.transport === 'stdio' ? SECRET_NAME : CREDENTIAL_HEADER;
    for (const [name, value] of pairs) {
      if (!value || !(named.test(name) || looksLikeToken(value, TOKEN_SHAPE))) continue;
      out.push(value);
      const token = SCHEME.exec(value.trim())?.[1];
      if (token) out.push(token);
    }
  }
  return out;
}
