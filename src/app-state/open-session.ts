import fs from 'node:fs';
import { codexCliAuthPath, keenAuthPath } from '../auth/codex-credentials.js';
import { KeenError } from '../errors.js';
import { loadConfig } from '../config/load.js';
import { keenHome } from '../config/paths.js';
import { resolveModel, type ResolvedModel } from '../config/resolve.js';
import { resolveTrust } from '../config/trust.js';
import type { KeenConfig } from '../config/schema.js';
import { computeBudget, DEFAULT_COMPACTION_POLICY, type ContextBudget } from '../llm/core/context-budget.js';
import { ContextMeter } from '../llm/core/token-estimator.js';
import { createChatClient } from '../llm/loop.js';
import { buildSystemPrompt } from '../llm/prompts/system-prompt.js';
import { createAdapter } from '../llm/providers/registry.js';
import { setMaxRetryWait } from '../llm/core/retry-fetch.js';
import { emptyUsage } from '../llm/core/usage.js';
import { interruptedToolResults } from '../session/interrupted.js';
import { latestSession } from '../session/list.js';
import { buildConversation, currentModel } from '../session/projection.js';
import type { SessionRecord } from '../session/records.js';
import { SessionStore } from '../session/store.js';
import { createDefaultRegistry } from '../tools/index.js';
import { createHeadlessGate } from '../tools/permissions.js';
import type { PermissionGate } from '../tools/types.js';
import { VERSION } from '../version.js';
import { AppState } from './app-state.js';
import { SessionController } from './session-controller.js';

export const DEFAULT_MAX_TURNS = 100;

export interface SessionFlags {
  provider?: string;
  model?: string;
  profile?: string;
  yolo?: boolean;
  /** `--trust`: trust the project folder and remember it (src/config/trust.ts). */
  trust?: boolean;
  /** Resume this session id. */
  session?: string;
  /** Resume this directory's latest session. */
  continue?: boolean;
}

export interface OpenSessionOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  flags: SessionFlags;
  interactive: boolean;
  /** The REPL's asking gate; headless runs get the config/--yolo gate. */
  permissions?: PermissionGate;
}

/** A running session: AppState + store + controller, ready for turns. */
export interface LiveSession {
  sessionId: string;
  provider: string;
  model: string;
  resolved: ResolvedModel;
  budget: ContextBudget;
  config: KeenConfig;
  /** Whether the project folder is trusted: its permission rules (and later MCP servers, hooks) count. */
  projectTrusted: boolean;
  home: string;
  controller: SessionController;
  store: SessionStore;
  /** Records on disk when the session was opened (for replay); empty for a new session. */
  records: SessionRecord[];
  /** One-line notices for the user (damaged transcript lines, a disabled policy). */
  warnings: string[];
  close(): Promise<void>;
}

/**
 * Opens a new or stored session. Credentials are checked (the adapter is built) before anything
 * is written, so a missing key never leaves an empty session behind; an unknown id or a locked
 * session is a one-line KeenError.
 */
export async function openSession(opts: OpenSessionOptions): Promise<LiveSession> {
  const home = keenHome(opts.env);
  const projectTrusted = resolveTrust(home, opts.cwd, { trustFlag: opts.flags.trust, yolo: opts.flags.yolo });
  const loaded = loadConfig(home, opts.cwd, { projectTrusted });
  const config = loaded.config;
  setMaxRetryWait(config.maxRetryWait === undefined ? undefined : config.maxRetryWait * 1000);
  const warnings: string[] = loaded.notice ? [loaded.notice] : [];
  let resumeId = opts.flags.session;
  if (!resumeId && opts.flags.continue) {
    const latest = await latestSession(home, opts.cwd);
    if (!latest) throw new KeenError('no session to continue in this directory; start one with `keen run "…"` or `keen`');
    resumeId = latest.id;
  }

  let store: SessionStore | undefined;
  let records: SessionRecord[] = [];
  try {
    let stored: { provider: string; model: string } | undefined;
    if (resumeId) {
      const opened = await SessionStore.open(home, opts.cwd, resumeId, { env: opts.env, secrets: configSecrets(config, opts.env) });
      store = opened.store;
      records = opened.records;
      if (opened.warning) warnings.push(opened.warning);
      stored = currentModel(records);
      // A tool call that was running when Keen died gets its result now: an error saying so.
      const dangling = interruptedToolResults(buildConversation(records));
      if (dangling) {
        records.push(await store.append({ kind: 'assistant_turn', text: '', tools: dangling.tools, usage: emptyUsage(), messages: dangling.messages }));
        warnings.push(`session ${resumeId}: ${dangling.messages.length} tool call(s) were interrupted when Keen stopped; recorded them as interrupted`);
      }
    }
    const flags = { ...opts.flags };
    if (stored && !flags.provider && !flags.model) {
      flags.provider = stored.provider;
      flags.model = stored.model;
    }
    const resolved = resolveModel(config, flags, opts.env, home);
    const adapter = await createAdapter(resolved.provider, resolved.settings);
    const budget = computeBudget(
      { contextWindow: resolved.info.contextWindow, maxOutputTokens: resolved.info.maxOutputTokens },
      { ...DEFAULT_COMPACTION_POLICY, ...stripUndefined(config.compaction ?? {}) },
    );
    if (budget.warning) warnings.push(budget.warning);
    const permissions = opts.permissions ?? createHeadlessGate({ yolo: !!opts.flags.yolo, allow: config.permissions?.allow ?? [] });
    const secrets = [...configSecrets(config, opts.env), ...(resolved.settings.apiKey ? [resolved.settings.apiKey] : [])];
    if (!store) {
      store = await SessionStore.create(home, { cwd: opts.cwd, provider: resolved.provider, model: resolved.name, keenVersion: VERSION, env: opts.env, secrets });
    } else if (stored && (stored.provider !== resolved.provider || stored.model !== resolved.name)) {
      await store.append({ kind: 'model_changed', provider: resolved.provider, model: resolved.name });
    }
    const client = createChatClient(adapter, {
      cwd: opts.cwd,
      permissions,
      budget,
      newGauge: () => new ContextMeter(),
      maxTurns: config.maxTurns ?? DEFAULT_MAX_TURNS,
    });
    const appState = new AppState({
      client,
      registry: createDefaultRegistry(),
      model: resolved.wireId,
      maxOutputTokens: resolved.info.maxOutputTokens,
      thinkingBudget: config.thinkingBudget,
      sessionId: store.id,
      buildSystemPrompt: () => buildSystemPrompt({ cwd: opts.cwd }),
      history: buildConversation(records),
    });
    const liveStore = store;
    return {
      sessionId: store.id,
      provider: resolved.provider,
      model: resolved.name,
      resolved,
      budget,
      config,
      projectTrusted,
      home,
      controller: new SessionController(appState, liveStore),
      store: liveStore,
      records,
      warnings,
      close: () => liveStore.close(),
    };
  } catch (err) {
    await store?.close().catch(() => undefined);
    throw err;
  }
}

/**
 * Values of the variables that config names as holding keys, and the tokens in Keen's and the
 * Codex CLI's auth files: redacted from transcripts, errors and JSON output too.
 */
function configSecrets(config: KeenConfig, env: NodeJS.ProcessEnv, home = keenHome(env)): string[] {
  const names = [...Object.values(config.models ?? {}), ...Object.values(config.providers ?? {})].map((e) => e?.apiKeyEnv);
  const fromEnv = names.flatMap((n) => (n && env[n] ? [env[n] as string] : []));
  return [...fromEnv, ...authFileTokens([keenAuthPath(home), codexCliAuthPath(env)])];
}

/** Every string of 16+ characters inside a `tokens` object of the given JSON files (missing files: none). */
function authFileTokens(files: string[]): string[] {
  const out: string[] = [];
  const walk = (value: unknown, inTokens: boolean): void => {
    if (typeof value === 'string') {
      if (inTokens && value.length >= 16) out.push(value);
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, inTokens || k === 'tokens');
    }
  };
  for (const file of files) {
    try {
      walk(JSON.parse(fs.readFileSync(file, 'utf8')), false);
    } catch {
      // no such file, or not JSON: nothing to redact from it
    }
  }
  return out;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
