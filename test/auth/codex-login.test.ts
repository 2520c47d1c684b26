import { readFile, stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { loginCodex, type LoginCodexOptions } from '../../src/auth/codex-login.js';
import { pkceChallenge } from '../../src/auth/pkce.js';
import { KeenError } from '../../src/errors.js';
import { startConnectProxy, useConnectProxy } from '../fakes/connect-proxy.js';
import { startFakeOAuthServer } from '../fakes/openai-responses-fake.js';
import { tempDir } from '../kit/temp-dir.js';

const oauth = await startFakeOAuthServer();
afterAll(() => oauth.close());
const proxy = useConnectProxy();

let home: string;
beforeEach(async () => {
  oauth.requests.length = 0;
  oauth.respond(undefined);
  home = tempDir('keen-login-');
});

/** Starts a login on a free port and resolves with the authorize URL it hands out. */
function startLogin(extra: Partial<LoginCodexOptions> = {}): { login: Promise<unknown>; url: Promise<URL> } {
  let gotUrl!: (u: URL) => void;
  const url = new Promise<URL>((r) => {
    gotUrl = r;
  });
  const login = loginCodex({ home, env: { KEEN_CODEX_AUTH_URL: oauth.url }, port: 0, onUrl: (u) => gotUrl(new URL(u)), timeoutMs: 10_000, ...extra });
  login.catch(() => {});
  return { login, url };
}

/** What the browser does after the user approves: GET the redirect URI on the loopback address. */
async function callback(authorize: URL, params: Record<string, string>): Promise<{ status: number; text: string }> {
  const redirect = new URL(authorize.searchParams.get('redirect_uri')!);
  const target = new URL(`http://127.0.0.1:${redirect.port}${redirect.pathname}`);
  for (const [k, v] of Object.entries(params)) target.searchParams.set(k, v);
  const res = await fetch(target);
  return { status: res.status, text: await res.text() };
}

describe('loginCodex', () => {
  it('runs the PKCE flow through the localhost callback and writes auth.json with mode 0600', async () => {
    const { login, url } = startLogin();
    const authorize = await url;
    expect(authorize.origin + authorize.pathname).toBe(`${oauth.url}/oauth/authorize`);
    expect(authorize.searchParams.get('response_type')).toBe('code');
    expect(authorize.searchParams.get('client_id')).toBe('app_EMoamEEZ73f0CkXaXp7hrann');
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('scope')).toContain('offline_access');
    expect(authorize.searchParams.get('redirect_uri')).toMatch(/^http:\/\/localhost:\d+\/auth\/callback$/);
    const state = authorize.searchParams.get('state')!;

    // A request with the wrong state is refused and the login keeps waiting.
    expect((await callback(authorize, { code: 'evil', state: 'forged' })).status).toBe(400);
    expect(oauth.requests).toHaveLength(0);

    const page = await callback(authorize, { code: 'the-code', state });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Signed in');
    await expect(login).resolves.toEqual({ path: join(home, 'auth.json'), accountId: 'acct_fake', email: 'dev@example.com' });

    const sent = oauth.requests[0];
    expect(sent.contentType).toBe('application/x-www-form-urlencoded');
    expect(sent.body).toMatchObject({ grant_type: 'authorization_code', code: 'the-code', redirect_uri: authorize.searchParams.get('redirect_uri') });
    expect(pkceChallenge(sent.body.code_verifier)).toBe(authorize.searchParams.get('code_challenge'));

    const file = JSON.parse(await readFile(join(home, 'auth.json'), 'utf8'));
    expect(file.codex.tokens).toMatchObject({ refresh_token: expect.stringMatching(/^refresh-new-/), account_id: 'acct_fake' });
    expect(typeof file.codex.tokens.access_token).toBe('string');
    expect((await stat(join(home, 'auth.json'))).mode & 0o777).toBe(0o600);
  });

  it('fails with one line when the user denies access', async () => {
    const { login, url } = startLogin();
    const authorize = await url;
    const page = await callback(authorize, { error: 'access_denied', error_description: 'User denied\naccess', state: authorize.searchParams.get('state')! });
    expect(page.status).toBe(400);
    await expect(login).rejects.toThrow(new KeenError('Codex sign-in failed: User denied access'));
  });

  it('fails when the token endpoint rejects the code, without echoing it', async () => {
    oauth.respond((req) => ({ status: 400, body: { error: 'invalid_grant', error_description: `bad code ${req.body.code}` } }));
    const { login, url } = startLogin();
    const authorize = await url;
    const page = await callback(authorize, { code: 'secret-code-123', state: authorize.searchParams.get('state')! });
    expect(page.status).toBe(500);
    const err = await login.then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(KeenError);
    expect(err?.message).toMatch(/invalid_grant/);
    expect(err?.message).not.toContain('secret-code-123');
  });

  it('exchanges the code through the proxy the environment names; a proxy that refuses fails with one line saying so', async () => {
    proxy.tunnels.length = 0;
    const issuerHost = new URL(oauth.url).host;
    const { login, url } = startLogin({ env: { KEEN_CODEX_AUTH_URL: oauth.url, HTTP_PROXY: proxy.url } });
    const authorize = await url;
    expect((await callback(authorize, { code: 'c', state: authorize.searchParams.get('state')! })).status).toBe(200);
    await expect(login).resolves.toMatchObject({ accountId: 'acct_fake' });
    expect(proxy.tunnels).toEqual([issuerHost]);
    expect(oauth.requests).toHaveLength(1);

    const refusing = await startConnectProxy({ answer: '407 Proxy Authentication Required' });
    try {
      const denied = startLogin({ env: { KEEN_CODEX_AUTH_URL: oauth.url, HTTPS_PROXY: refusing.url.replace('http://', 'http://me:pw@') } });
      const again = await denied.url;
      expect((await callback(again, { code: 'secret-code-9', state: again.searchParams.get('state')! })).status).toBe(500);
      const err = (await denied.login.catch((e: unknown) => e)) as Error;
      expect(err).toBeInstanceOf(KeenError);
      expect(err.message).toBe(
        `Could not reach ${oauth.url}/oauth/token to finish the Codex sign-in: fetch failed: proxy ${refusing.url} refused the tunnel to ${issuerHost}: 407 Proxy Authentication Required`,
      );
      expect(refusing.tunnels).toEqual([issuerHost]);
      expect(oauth.requests).toHaveLength(1);
    } finally {
      await refusing.close();
    }
  });

  it('names the port when it is already taken', async () => {
    const blocker = http.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as AddressInfo).port;
    try {
      await expect(loginCodex({ home, env: {}, port, onUrl: () => {} })).rejects.toThrow(new RegExp(`Port ${port} is in use`));
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()));
    }
  });

  it('stops waiting when cancelled', async () => {
    const ac = new AbortController();
    const { login, url } = startLogin({ signal: ac.signal });
    await url;
    ac.abort();
    await expect(login).rejects.toThrow(/cancelled/);
  });
});

describe('runCodexLogin', () => {
  it('prints the URL, opens it, and reports where the login was saved', async () => {
    const { runCodexLogin } = await import('../../src/auth/codex-login-cli.js');
    let out = '';
    let opened = '';
    const done = runCodexLogin({
      env: { KEEN_HOME: home, KEEN_CODEX_AUTH_URL: oauth.url },
      port: 0,
      write: (t) => {
        out += t;
      },
      openBrowser: (u) => {
        opened = u;
        const authorize = new URL(u);
        void callback(authorize, { code: 'c', state: authorize.searchParams.get('state')! });
      },
    });
    await expect(done).resolves.toBe(0);
    expect(out).toContain(opened);
    expect(out).toContain(`Signed in to Codex as dev@example.com. Credentials saved to ${join(home, 'auth.json')}`);
    expect(out).not.toMatch(/refresh-new|eyJ/);
  });
});
