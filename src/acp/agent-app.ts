/**
 * `keen acp`: Keen as an Agent Client Protocol agent (JSON-RPC over stdio) for editors — Zed,
 * the JetBrains IDEs, Neovim and Emacs plugins. Each `session/new` or `session/load` opens a Keen
 * session in the client's folder with the options `keen acp` was started with; prompts run
 * through the same controller, tool loop, permissions and compaction as the terminal.
 */
import { resolve, isAbsolute } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import type { SessionFlags } from '../agent/flags.js';
import { type LiveSession, openSession } from '../agent/open-session.js';
import { errorText } from '../errors.js';
import { scrubText } from '../security/scrubber.js';
import { VERSION } from '../version.js';
import { readConfigFile } from '../config/load.js';
import { keenHome, userConfigPath } from '../config/paths.js';
import type { KeenConfig } from '../config/schema.js';
import { AcpGate } from './acp-gate.js';
import { type ModelChoice, modelChoices } from './config-options.js';
import { editorAccess, editorMcpServers } from './editor-access.js';
import { authMethods, type KeenAuthMethod } from './auth-methods.js';
import { AcpSession, TurnFailed } from './acp-session.js';
import { modelTakesImages } from './prompt-text.js';

export interface AcpOptions {
  flags: SessionFlags;
  /** The folder `keen acp` was started in: the only one `--trust` / `--yolo` may trust. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Where late warnings of a session go (stderr: the editor's log). */
  onWarning: (line: string) => void;
}

/**
 * The flags a session in `cwd` opens with. `--trust` and `--yolo` trust the folder they are given
 * in; an editor names any folder, so elsewhere they do not trust it (`--yolo` still runs every call
 * without asking, as `--permission-mode bypassPermissions` does).
 */
export function sessionFlagsFor(flags: SessionFlags, cwd: string, own: string): SessionFlags {
  if (resolve(cwd) === resolve(own) || (!flags.trust && !flags.yolo)) return flags;
  const { trust: _t, yolo, ...rest } = flags;
  return yolo ? { ...rest, permissionMode: 'bypassPermissions' } : rest;
}

/** The agent app; `connect` it to a stream. Sessions close when the connection does. */
export function keenAgent(opts: AcpOptions): { app: acp.AgentApp; closeAll: () => Promise<void> } {
  const sessions = new Map<string, AcpSession>();
  let compactionUpdates = false;
  let capabilities: acp.ClientCapabilities = {};
  const userConfig = (): KeenConfig => {
    try {
      return readConfigFile(userConfigPath(keenHome(opts.env)));
    } catch {
      return {}; // the session open names a broken config in its own error
    }
  };
  let known: KeenAuthMethod[] | undefined;
  const methods = () => {
    known ??= authMethods(opts.flags, opts.env);
    return known;
  };

  const find = (id: string): AcpSession => {
    const s = sessions.get(id);
    if (!s) throw acp.RequestError.sessionNotFound(id);
    return s;
  };

  /** A session in `cwd`; `replay`: a stored one to be shown whole (session/load). */
  async function open(client: acp.AgentContext, cwd: string, requested: SessionFlags, servers: acp.McpServer[] | undefined, replay = false): Promise<AcpSession> {
    if (!isAbsolute(cwd)) throw acp.RequestError.invalidParams(undefined, `cwd must be an absolute path: ${cwd}`);
    const flags = sessionFlagsFor(requested, cwd, opts.cwd);
    let session: AcpSession | undefined;
    const gate = new AcpGate((request) => (session ? session.ask(request) : Promise.resolve('deny')));
    let live: LiveSession | undefined;
    const editor = editorAccess({
      client,
      capabilities,
      sessionId: () => live?.sessionId ?? '',
      terminalOptIn: userConfig().acp?.clientTerminal === true,
      onTerminal: (callId, terminalId) => session?.terminalStarted(callId, terminalId) ?? Promise.resolve(),
    });
    const mcpServers = editorMcpServers(servers);
    // A late warning (a hook that failed or stopped the turn, an MCP server that crashed) goes to the log, and to the user during a prompt.
    const warn = (line: string) => {
      opts.onWarning(line);
      void session?.note(line).catch(() => undefined);
    };
    /** Opens Keen's session with `f` (a model switch opens it again, keeping `newSessionId`). */
    const start = async (f: SessionFlags, newSessionId?: string, shown = false): Promise<LiveSession> => {
      let next: LiveSession;
      try {
        next = await openSession({ cwd, env: opts.env, flags: f, interactive: false, permissions: gate, onWarning: warn, editor, mcpServers, newSessionId, replay: shown });
      } catch (err) {
        const line = scrubText(errorText(err));
        // No key or login for the session's provider: the editor offers the auth methods.
        const [first] = methods();
        if (first && (await first.missing())) throw acp.RequestError.authRequired(undefined, line);
        throw acp.RequestError.invalidParams(undefined, line);
      }
      gate.configure(next.policy);
      for (const w of next.warnings) opts.onWarning(`keen: warning: ${w}`);
      live = next;
      return next;
    };
    const first = await start(flags, undefined, replay);
    // The editor's id for the session stays the first one's, whatever model it switches to.
    const sessionId = first.sessionId;
    // Everything sent to the editor is redacted as stream-json lines are: editors keep threads.
    const clean = <T>(value: T): T => {
      const text = JSON.stringify(value);
      const redacted = (live ?? first).store.redactText(text);
      return redacted === text ? value : (JSON.parse(redacted) as T);
    };
    const peer = {
      compactionUpdates,
      update: (update: acp.SessionUpdate) => client.notify(acp.methods.client.session.update, { sessionId, update: clean(update) }),
      requestPermission: (params: Omit<acp.RequestPermissionRequest, 'sessionId'>) => client.request(acp.methods.client.session.requestPermission, { sessionId, ...clean(params) }),
    };
    /** The session on `choice`; when that fails, the session as it was, and why. */
    const reopen = async (choice: ModelChoice): Promise<{ live: LiveSession; error?: unknown }> => {
      const old = live ?? first;
      const next = { ...flags, provider: choice.provider, model: choice.name };
      // A stored session is locked while open: close it, then resume it on the new model (or again on the old).
      if (old.store.persisted) {
        await old.close();
        try {
          return { live: await start({ ...next, session: old.sessionId }) };
        } catch (error) {
          return { live: await start({ ...flags, provider: old.provider, model: old.model, session: old.sessionId }), error };
        }
      }
      // Nothing on disk yet: a new session under the same id, then the old one goes.
      try {
        const opened = await start(next, old.sessionId);
        await old.close();
        return { live: opened };
      } catch (error) {
        live = old;
        gate.configure(old.policy);
        return { live: old, error };
      }
    };
    const choices = await modelChoices(first.config, methods(), { name: first.model, provider: first.provider as ModelChoice['provider'] });
    session = new AcpSession(first, peer, cwd, { choices, reopen });
    sessions.set(sessionId, session);
    return session;
  }

  const announceCommands = (client: acp.AgentContext, s: AcpSession) =>
    client.notify(acp.methods.client.session.update, {
      sessionId: s.id,
      update: { sessionUpdate: 'available_commands_update', availableCommands: s.commands() },
    });

  const app = acp
    .agent({ name: 'keen' })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      compactionUpdates = params.clientCapabilities?.session?.compaction != null;
      capabilities = params.clientCapabilities ?? {};
      const response: acp.InitializeResponse = {
        protocolVersion: acp.PROTOCOL_VERSION,
        agentInfo: { name: 'keen', version: VERSION },
        agentCapabilities: { loadSession: true, promptCapabilities: { image: modelTakesImages(opts.flags, opts.cwd, opts.env), audio: false, embeddedContext: true } },
        authMethods: methods().map((m) => m.method),
      };
      // The client's MCP servers may be stdio, http or sse (editorMcpServers).
      response.agentCapabilities = { ...response.agentCapabilities, mcpCapabilities: { http: true, sse: true } };
      return response;
    })
    .onRequest(acp.methods.agent.authenticate, async ({ params }) => {
      const method = methods().find((m) => m.method.id === params.methodId);
      if (!method)
        throw acp.RequestError.invalidParams(
          undefined,
          `unknown auth method "${params.methodId}"; choose one of ${methods()
            .map((m) => m.method.id)
            .join(', ')}`,
        );
      const missing = await method.missing();
      if (missing) throw acp.RequestError.authRequired(undefined, missing);
      return {};
    })
    .onRequest(acp.methods.agent.session.new, async ({ params, client }) => {
      const s = await open(client, params.cwd, opts.flags, params.mcpServers);
      // After the response: the client learns the session id first.
      setImmediate(() => void announceCommands(client, s).catch(() => undefined));
      return { sessionId: s.id, modes: s.modes, configOptions: s.configOptions };
    })
    .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
      const s = await open(client, params.cwd, { ...opts.flags, session: params.sessionId }, params.mcpServers, true);
      await s.replay();
      setImmediate(() => void announceCommands(client, s).catch(() => undefined));
      return { modes: s.modes, configOptions: s.configOptions };
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params, signal }) => {
      const s = find(params.sessionId);
      const onAbort = () => s.cancel();
      signal.addEventListener('abort', onAbort);
      try {
        return { stopReason: await s.prompt(params.prompt) };
      } catch (err) {
        if (err instanceof TurnFailed) throw acp.RequestError.internalError(undefined, err.message);
        throw acp.RequestError.internalError(undefined, scrubText(errorText(err)));
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    })
    .onRequest(acp.methods.agent.session.setMode, ({ params }) => {
      try {
        find(params.sessionId).setMode(params.modeId);
      } catch (err) {
        if (err instanceof TurnFailed) throw acp.RequestError.invalidParams(undefined, err.message);
        throw err;
      }
      return {};
    })
    .onRequest(acp.methods.agent.session.setConfigOption, async ({ params }) => {
      const s = find(params.sessionId);
      if (typeof params.value !== 'string') throw acp.RequestError.invalidParams(undefined, `${params.configId} takes one of its values, not ${String(params.value)}`);
      try {
        await s.setConfigOption(params.configId, params.value);
      } catch (err) {
        if (err instanceof TurnFailed) throw acp.RequestError.invalidParams(undefined, err.message);
        throw err;
      }
      return { configOptions: s.configOptions };
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    });

  const closeAll = async () => {
    for (const s of sessions.values()) s.cancel();
    await Promise.allSettled([...sessions.values()].map((s) => s.live.close()));
    sessions.clear();
  };
  return { app, closeAll };
}
