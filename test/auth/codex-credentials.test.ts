import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { CodexCredentials, codexCliAuthPath, findCodexTokens, saveKeenCodexTokens } from '../../src/auth/codex-credentials.js';
import { KeenError } from '../../src/errors.js';
import { useConnectProxy } from '../fakes/connect-proxy.js';
import { fakeJwt, startFakeOAuthServer } from '../fakes/openai-responses-fake.js';
import { tempDir } from '../kit/temp-dir.js';

const oauth = await startFakeOAuthServer();
const proxy = useConnectProxy();
afterAll(() => oauth.close());

let root: string;
let keenHome: string;
let codexHome: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  oauth.requests.length = 0;
  oauth.respond(undefined);
  root = tempDir('keen-creds-');
  keenHome = join(root, 'keen');
  codexHome = join(root, 'codex');
  await mkdir(codexHome, { recursive: true });
  env = { CODEX_HOME: codexHome, KEEN_CODEX_AUTH_URL: oauth.url };
});

const hourFromNow = () => Math.floor(Date.now() / 1000) + 3600;
const cliAuth = (access: string, extra: Record<string, unknown> = {}) =>
  writeFile(join(codexHome, 'auth.json'), JSON.stringify({ tokens: { access_token: access, refresh_token: 'refresh-cli-token', id_token: 'x.y.z' }, ...extra }));

describe('codex credentials', () => {
  it("defaults CODEX_HOME to ~/.codex and prefers Keen's file over the Codex CLI's", async () => {
    expect(codexCliAuthPath({ HOME: '/home/u' })).toBe('/home/u/.codex/auth.json');
    await cliAuth('cli-access');
    expect((await findCodexTokens(keenHome, env))?.source.kind).toBe('codex-cli');
    await saveKeenCodexTokens(keenHome, { access_token: 'keen-access', refresh_token: 'r-keen' });
    const found = await findCodexTokens(keenHome, env);
    expect(found?.source).toEqual({ kind: 'keen', path: join(keenHome, 'auth.json') });
    expect(found?.tokens.access_token).toBe('keen-access');
  });

  it('keeps other entries of Keen auth.json and writes it 0600', async () => {
    await mkdir(keenHome, { recursive: true });
    await writeFile(join(keenHome, 'auth.json'), JSON.stringify({ other: { key: 'v' } }));
    await saveKeenCodexTokens(keenHome, { access_token: 'a', refresh_token: 'r' });
    const file = JSON.parse(await readFile(join(keenHome, 'auth.json'), 'utf8'));
    expect(file.other).toEqual({ key: 'v' });
    expect(file.codex.tokens).toEqual({ access_token: 'a', refresh_token: 'r' });
    expect((await stat(join(keenHome, 'auth.json'))).mode & 0o777).toBe(0o600);
  });

  it('names a malformed auth file', async () => {
    await writeFile(join(codexHome, 'auth.json'), '{nope');
    await expect(CodexCredentials.load(keenHome, env)).rejects.toThrow(new KeenError(`${join(codexHome, 'auth.json')} is not valid JSON; fix or delete it and sign in again.`));
  });

  it('refreshes once for concurrent requests', async () => {
    await cliAuth(fakeJwt({ exp: 1 }));
    const creds = await CodexCredentials.load(keenHome, env);
    const [a, b] = await Promise.all([creds.accessToken(), creds.accessToken()]);
    expect(a).toBe(b);
    expect(oauth.requests).toHaveLength(1);
    expect(await creds.accessToken()).toBe(a);
    expect(oauth.requests).toHaveLength(1);
  });

  it('refreshes through the proxy the environment names, as model requests do', async () => {
    await cliAuth(fakeJwt({ exp: 1 }));
    const creds = await CodexCredentials.load(keenHome, { ...env, HTTP_PROXY: proxy.url });
    await creds.accessToken();
    expect(oauth.requests).toHaveLength(1);
    expect(proxy.tunnels).toEqual([new URL(oauth.url).host]);
  });

  it('picks up a token the Codex CLI refreshed on disk meanwhile', async () => {
    await cliAuth(fakeJwt({ exp: hourFromNow(), v: 1 }));
    const creds = await CodexCredentials.load(keenHome, env);
    const second = fakeJwt({ exp: hourFromNow(), v: 2 });
    await cliAuth(second);
    expect(await creds.accessToken()).toBe(second);
    expect(oauth.requests).toHaveLength(0);
  });

  it('refreshes a token without exp once last_refresh is over 8 days old', async () => {
    await cliAuth('opaque-token-1', { last_refresh: new Date(Date.now() - 9 * 24 * 3600_000).toISOString() });
    const creds = await CodexCredentials.load(keenHome, env);
    expect(await creds.accessToken()).not.toBe('opaque-token-1');
    expect(oauth.requests).toHaveLength(1);
  });

  it('redacts every token it has held', async () => {
    await cliAuth(fakeJwt({ exp: 1 }));
    const creds = await CodexCredentials.load(keenHome, env);
    const fresh = await creds.accessToken();
    expect(creds.redact(`Bearer ${fresh} and refresh-cli-token`)).toBe('Bearer [redacted] and [redacted]');
  });
});
