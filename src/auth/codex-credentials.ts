import { homedir } from 'node:os';
import { join } from 'node:path';
import { authPath } from '../config/paths.js';
import { KeenError } from '../errors.js';
import { sdkFetch } from '../net/http-fetch.js';
import { addCredentials, scrubText } from '../security/scrubber.js';
import { codexIssuer, refreshCodexTokens, type IssuedTokens } from './codex-oauth.js';
import { chatgptAccountId, jwtExpiryMs } from './jwt.js';
import { readJsonFile, writeSecretJson } from './secret-file.js';

export const CODEX_NOT_SIGNED_IN = 'Not signed in to Codex: run `keen login codex` (or sign in with the Codex CLI), or pick another provider with --provider.';

/** The token set both Keen and the Codex CLI store (the Codex CLI's `tokens` object). */
export interface CodexTokens {
  id_token?: string;
  access_token: string;
  refresh_token: string;
  account_id?: string;
}

/**
 * Where tokens were found. Keen's `$KEEN_HOME/auth.json` holds `{"codex": {"tokens": …,
 * "last_refresh": …}}`; the Codex CLI's `$CODEX_HOME/auth.json` holds `{"tokens": …, "last_refresh": …}`
 * beside fields Keen leaves untouched.
 */
export type CodexTokenSource = { kind: 'keen' | 'codex-cli'; path: string };

export function keenAuthPath(home: string): string {
  return authPath(home);
}

export function codexCliAuthPath(env: NodeJS.ProcessEnv): string {
  const codexHome = env.CODEX_HOME?.trim() || join(env.HOME?.trim() || homedir(), '.codex');
  return join(codexHome, 'auth.json');
}

/** Refresh this long before `exp` so a request never leaves with a token about to expire. */
const EXPIRY_SKEW_MS = 60_000;
/** Tokens without a readable `exp` are refreshed after this long, as the Codex CLI does. */
const MAX_TOKEN_AGE_MS = 8 * 24 * 3600_000;

/** Keen's file first, then the Codex CLI's. Undefined when neither holds a usable token set. */
export async function findCodexTokens(home: string, env: NodeJS.ProcessEnv): Promise<{ tokens: CodexTokens; lastRefresh?: string; source: CodexTokenSource } | undefined> {
  const keenPath = keenAuthPath(home);
  const keen = asRecord(await readJsonFile(keenPath))?.codex;
  const fromKeen = parseEntry(keen);
  if (fromKeen) return { ...fromKeen, source: { kind: 'keen', path: keenPath } };
  const cliPath = codexCliAuthPath(env);
  const fromCli = parseEntry(await readJsonFile(cliPath));
  if (fromCli) return { ...fromCli, source: { kind: 'codex-cli', path: cliPath } };
  return undefined;
}

/** Stores tokens under `codex` in Keen's auth.json (0600), keeping other entries. */
export async function saveKeenCodexTokens(home: string, tokens: CodexTokens, now = new Date()): Promise<string> {
  const path = keenAuthPath(home);
  const existing = asRecord(await readJsonFile(path)) ?? {};
  await writeSecretJson(path, { ...existing, codex: { tokens, last_refresh: now.toISOString() } });
  return path;
}

/**
 * Live Codex credentials. Every request asks {@link accessToken}, which re-reads the source file
 * (the Codex CLI may have refreshed meanwhile) and refreshes an expired token. Refresh tokens are
 * single-use, so new tokens are written back to the file they came from — the Codex CLI's file
 * included — or both tools would lose the login.
 */
export class CodexCredentials {
  private refreshing: Promise<CodexTokens> | undefined;
  private readonly seen = new Set<string>();

  private constructor(
    private readonly home: string,
    private readonly env: NodeJS.ProcessEnv,
    private tokens: CodexTokens,
    readonly source: CodexTokenSource,
    private lastRefresh: string | undefined,
  ) {
    this.remember(tokens);
  }

  /** Throws KeenError({@link CODEX_NOT_SIGNED_IN}) when no login is stored. */
  static async load(home: string, env: NodeJS.ProcessEnv): Promise<CodexCredentials> {
    const found = await findCodexTokens(home, env);
    if (!found) throw new KeenError(CODEX_NOT_SIGNED_IN);
    return new CodexCredentials(home, env, found.tokens, found.source, found.lastRefresh);
  }

  get accountId(): string | undefined {
    return this.tokens.account_id ?? chatgptAccountId(this.tokens.id_token) ?? chatgptAccountId(this.tokens.access_token);
  }

  /** A valid access token, refreshing it first when it has expired. Throws KeenError. */
  async accessToken(now = Date.now()): Promise<string> {
    const found = await findCodexTokens(this.home, this.env);
    if (found && found.source.path === this.source.path) {
      this.tokens = found.tokens;
      this.lastRefresh = found.lastRefresh;
      this.remember(found.tokens);
    }
    if (!this.expired(now)) return this.tokens.access_token;
    this.refreshing ??= this.refresh().finally(() => {
      this.refreshing = undefined;
    });
    return (await this.refreshing).access_token;
  }

  /** Replaces any token Keen has held with `[redacted]` (and, by the one scrubber, its other spellings). */
  redact(text: string): string {
    let out = text;
    for (const secret of this.seen) out = out.split(secret).join('[redacted]');
    return scrubText(out);
  }

  private expired(now: number): boolean {
    const exp = jwtExpiryMs(this.tokens.access_token);
    if (exp !== undefined) return exp - EXPIRY_SKEW_MS <= now;
    const last = this.lastRefresh ? Date.parse(this.lastRefresh) : NaN;
    return Number.isFinite(last) && now - last > MAX_TOKEN_AGE_MS;
  }

  private async refresh(): Promise<CodexTokens> {
    // The providers' fetch: HTTPS_PROXY / NO_PROXY honoured as for the model requests.
    const issued: IssuedTokens = await refreshCodexTokens(codexIssuer(this.env), this.tokens.refresh_token, sdkFetch(this.env));
    const next: CodexTokens = {
      ...this.tokens,
      access_token: issued.access_token,
      refresh_token: issued.refresh_token ?? this.tokens.refresh_token,
      id_token: issued.id_token ?? this.tokens.id_token,
    };
    next.account_id = this.tokens.account_id ?? chatgptAccountId(next.id_token) ?? chatgptAccountId(next.access_token);
    if (!next.account_id) delete next.account_id;
    this.remember(next);
    await this.persist(next);
    this.tokens = next;
    this.lastRefresh = new Date().toISOString();
    return next;
  }

  private async persist(tokens: CodexTokens): Promise<void> {
    if (this.source.kind === 'keen') {
      await saveKeenCodexTokens(this.home, tokens);
      return;
    }
    const file = asRecord(await readJsonFile(this.source.path)) ?? {};
    const previous = asRecord(file.tokens) ?? {};
    await writeSecretJson(this.source.path, { ...file, tokens: { ...previous, ...tokens }, last_refresh: new Date().toISOString() });
  }

  private remember(t: CodexTokens): void {
    for (const s of [t.access_token, t.refresh_token, t.id_token]) if (s && s.length >= 8) this.seen.add(s);
    // Every token this process sends is scrubbed from everything it prints and writes.
    addCredentials([t.access_token, t.refresh_token, t.id_token]);
  }
}

function parseEntry(value: unknown): { tokens: CodexTokens; lastRefresh?: string } | undefined {
  const entry = asRecord(value);
  const t = asRecord(entry?.tokens);
  if (!t || typeof t.access_token !== 'string' || !t.access_token || typeof t.refresh_token !== 'string') return undefined;
  const tokens: CodexTokens = { access_token: t.access_token, refresh_token: t.refresh_token };
  if (typeof t.id_token === 'string') tokens.id_token = t.id_token;
  if (typeof t.account_id === 'string' && t.account_id) tokens.account_id = t.account_id;
  const lastRefresh = typeof entry?.last_refresh === 'string' ? entry.last_refresh : undefined;
  return { tokens, lastRefresh };
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
