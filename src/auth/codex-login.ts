import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KeenError } from '../errors.js';
import { sdkFetch } from '../net/http-fetch.js';
import { saveKeenCodexTokens, type CodexTokens } from './codex-credentials.js';
import { CODEX_CLIENT_ID, CODEX_SCOPES, codexIssuer, exchangeCodexCode } from './codex-oauth.js';
import { chatgptAccountId, jwtEmail } from './jwt.js';
import { createPkce, randomState } from './pkce.js';

/** The callback port registered for the Codex OAuth client (redirect http://localhost:1455/auth/callback). */
export const CODEX_CALLBACK_PORT = 1455;
const CALLBACK_PATH = '/auth/callback';

export interface LoginCodexOptions {
  /** KEEN_HOME: tokens are written to `<home>/auth.json` (mode 0600). */
  home: string;
  /** Read for KEEN_CODEX_AUTH_URL (the OAuth issuer) and the proxy settings (HTTPS_PROXY, NO_PROXY…). */
  env: NodeJS.ProcessEnv;
  /**
   * Receives the sign-in URL once the callback server listens. The CLI prints it and may open a
   * browser; the URL carries no secret (only the PKCE challenge and the state).
   */
  onUrl: (url: string) => void | Promise<void>;
  /** Default {@link CODEX_CALLBACK_PORT}; 0 picks a free port (tests). */
  port?: number;
  /** Aborting stops waiting and closes the callback server. */
  signal?: AbortSignal;
  /** Default 10 minutes. */
  timeoutMs?: number;
}

export interface LoginCodexResult {
  /** The auth file written. */
  path: string;
  accountId?: string;
  email?: string;
}

/**
 * `keen login codex`: OAuth 2.0 authorization code with PKCE (S256). Starts a callback server on
 * 127.0.0.1, hands the authorize URL to `onUrl`, waits for the browser to come back to
 * `/auth/callback`, checks `state`, exchanges the code at the issuer's token endpoint, and stores
 * the tokens in Keen's own auth.json. The token request goes through the proxy `env` names, as
 * model requests do (http-fetch.ts `sdkFetch`). Rejects with a one-line KeenError; never logs a token.
 */
export async function loginCodex(opts: LoginCodexOptions): Promise<LoginCodexResult> {
  const issuer = codexIssuer(opts.env);
  const pkce = createPkce();
  const state = randomState();
  const wanted = opts.port ?? CODEX_CALLBACK_PORT;

  let settle!: { resolve: (r: LoginCodexResult) => void; reject: (e: Error) => void };
  const done = new Promise<LoginCodexResult>((resolve, reject) => {
    settle = { resolve, reject };
  });
  done.catch(() => {}); // rejections are observed by the await below; this only avoids an early "unhandled" report
  let redirectUri = '';
  let busy = false;

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/cancel') {
      page(res, 200, 'Sign-in cancelled.');
      settle.reject(new KeenError('Codex sign-in was cancelled.'));
      return;
    }
    if (url.pathname !== CALLBACK_PATH) {
      page(res, 404, 'Not found.');
      return;
    }
    if (url.searchParams.get('state') !== state) {
      // A stray or forged request: refuse it and keep waiting for the real one.
      page(res, 400, 'State mismatch: this sign-in link is not from the running `keen login codex`.');
      return;
    }
    const error = url.searchParams.get('error');
    if (error) {
      const reason = url.searchParams.get('error_description') || error;
      page(res, 400, `Sign-in failed: ${reason}`);
      settle.reject(new KeenError(`Codex sign-in failed: ${oneLine(reason)}`));
      return;
    }
    const code = url.searchParams.get('code');
    if (!code || busy) {
      page(res, 400, busy ? 'Sign-in already in progress.' : 'Missing authorization code.');
      return;
    }
    busy = true;
    void finish(code).then(
      (result) => {
        page(res, 200, 'Signed in to Keen with your ChatGPT account. You can close this tab.');
        settle.resolve(result);
      },
      (err: Error) => {
        page(res, 500, `Sign-in failed: ${err.message}`);
        settle.reject(err instanceof KeenError ? err : new KeenError(`Codex sign-in failed: ${oneLine(err.message)}`));
      },
    );
  });

  async function finish(code: string): Promise<LoginCodexResult> {
    // Through the proxy the environment names (HTTPS_PROXY…, NO_PROXY), as every model request.
    const issued = await exchangeCodexCode(issuer, code, redirectUri, pkce.verifier, sdkFetch(opts.env));
    const tokens: CodexTokens = { id_token: issued.id_token, access_token: issued.access_token, refresh_token: issued.refresh_token };
    const accountId = chatgptAccountId(issued.id_token) ?? chatgptAccountId(issued.access_token);
    if (accountId) tokens.account_id = accountId;
    const path = await saveKeenCodexTokens(opts.home, tokens);
    const result: LoginCodexResult = { path };
    if (accountId) result.accountId = accountId;
    const email = jwtEmail(issued.id_token);
    if (email) result.email = email;
    return result;
  }

  await listen(server, wanted);
  const port = (server.address() as AddressInfo).port;
  redirectUri = `http://localhost:${port}${CALLBACK_PATH}`;

  const timeoutMs = opts.timeoutMs ?? 10 * 60_000;
  const timer = setTimeout(() => settle.reject(new KeenError(`Codex sign-in timed out after ${Math.round(timeoutMs / 1000)}s; run \`keen login codex\` again.`)), timeoutMs);
  const onAbort = () => settle.reject(new KeenError('Codex sign-in was cancelled.'));
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();

  try {
    if (!opts.signal?.aborted) await opts.onUrl(authorizeUrl(issuer, redirectUri, pkce.challenge, state));
    return await done;
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
    await close(server);
  }
}

/** The issuer's authorize URL with the PKCE challenge; same parameters the Codex CLI sends. */
export function authorizeUrl(issuer: string, redirectUri: string, challenge: string, state: string): string {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: CODEX_CLIENT_ID,
    redirect_uri: redirectUri,
    scope: CODEX_SCOPES,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    id_token_add_organizations: 'true',
    codex_cli_simplified_flow: 'true',
    state,
    originator: 'keen',
  });
  return `${issuer}/oauth/authorize?${q.toString()}`;
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(
        err.code === 'EADDRINUSE'
          ? new KeenError(`Port ${port} is in use (another sign-in still running?); close it and run \`keen login codex\` again.`)
          : new KeenError(`Cannot start the sign-in callback server on port ${port}: ${err.message}`),
      );
    };
    server.once('error', onError);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', onError);
      resolve();
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Let the last page flush before dropping keep-alive browser connections.
    setTimeout(() => server.closeAllConnections(), 100).unref();
  });
}

function page(res: ServerResponse, status: number, message: string): void {
  const body = `<!doctype html><meta charset="utf-8"><title>Keen</title><p style="font-family:sans-serif">${escapeHtml(message)}</p>\n`;
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', connection: 'close' });
  res.end(body);
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim().slice(0, 300);
}
