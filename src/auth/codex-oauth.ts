import { KeenError } from '../errors.js';

/** The public OAuth client of the Codex CLI; ChatGPT sign-in for the Codex backend goes through it. */
export const CODEX_CLIENT_ID = 'app_EMoamEEZ73f0CkXaXp7hrann';
export const CODEX_DEFAULT_ISSUER = 'https://auth.openai.com';
/** Scopes requested at sign-in; `offline_access` yields the refresh token. */
export const CODEX_SCOPES = 'openid profile email offline_access';

/** The OAuth issuer: KEEN_CODEX_AUTH_URL (tests, self-hosted) or auth.openai.com. */
export function codexIssuer(env: NodeJS.ProcessEnv): string {
  const url = env.KEEN_CODEX_AUTH_URL?.trim();
  return (url || CODEX_DEFAULT_ISSUER).replace(/\/+$/, '');
}

export interface IssuedTokens {
  access_token: string;
  refresh_token?: string;
  id_token?: string;
}

const RELOGIN = 'Run `keen login codex` to sign in again.';

/** Trades a refresh token for new tokens; `send` is the fetch to use. Errors never include any token. */
export async function refreshCodexTokens(issuer: string, refreshToken: string, send: typeof fetch = fetch): Promise<IssuedTokens> {
  const body = JSON.stringify({ client_id: CODEX_CLIENT_ID, grant_type: 'refresh_token', refresh_token: refreshToken, scope: 'openid profile email' });
  return postToken(issuer, 'application/json', body, 'refresh the Codex login', [refreshToken], send);
}

/** Completes the PKCE authorization-code flow; `send` is the fetch to use (`keen login codex`: its proxy-aware one). */
export async function exchangeCodexCode(issuer: string, code: string, redirectUri: string, verifier: string, send: typeof fetch = fetch): Promise<Required<IssuedTokens>> {
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    client_id: CODEX_CLIENT_ID,
    code_verifier: verifier,
  }).toString();
  const tokens = await postToken(issuer, 'application/x-www-form-urlencoded', body, 'finish the Codex sign-in', [code, verifier], send);
  if (!tokens.refresh_token || !tokens.id_token) throw new KeenError(`The sign-in server at ${issuer} returned no refresh or id token. ${RELOGIN}`);
  return tokens as Required<IssuedTokens>;
}

async function postToken(issuer: string, contentType: string, body: string, what: string, secrets: string[], send: typeof fetch = fetch): Promise<IssuedTokens> {
  const url = `${issuer}/oauth/token`;
  const scrub = (text: string) => secrets.reduce((t, s) => (s ? t.split(s).join('[redacted]') : t), text);
  let res: Response;
  try {
    res = await send(url, { method: 'POST', headers: { 'content-type': contentType, accept: 'application/json' }, body, signal: AbortSignal.timeout(30_000) });
  } catch (err) {
    throw new KeenError(`Could not reach ${url} to ${what}: ${scrub(withCauses(err))}`);
  }
  const text = await res.text().catch(() => '');
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    /* reported below */
  }
  if (!res.ok) {
    throw new KeenError(`Could not ${what}: ${url} answered ${res.status} (${scrub(describeOAuthError(json))}). ${RELOGIN}`);
  }
  if (typeof json.access_token !== 'string' || !json.access_token) {
    throw new KeenError(`Could not ${what}: ${url} returned no access token. ${RELOGIN}`);
  }
  return {
    access_token: json.access_token,
    refresh_token: typeof json.refresh_token === 'string' ? json.refresh_token : undefined,
    id_token: typeof json.id_token === 'string' ? json.id_token : undefined,
  };
}

/** `fetch failed: <why>`: fetch's message says nothing without its causes (a proxy's refusal…). */
function withCauses(err: unknown): string {
  const parts: string[] = [];
  for (let cur: unknown = err, depth = 0; cur instanceof Error && depth < 4; depth++, cur = cur.cause) parts.push(cur.message);
  return parts.join(': ').replace(/\s+/g, ' ');
}

function describeOAuthError(json: Record<string, unknown>): string {
  const err = json.error;
  if (typeof err === 'string') return typeof json.error_description === 'string' ? `${err}: ${json.error_description}` : err;
  if (err && typeof err === 'object') {
    const e = err as Record<string, unknown>;
    return [e.code, e.message].filter((x) => typeof x === 'string').join(': ') || 'error';
  }
  return 'no details';
}
