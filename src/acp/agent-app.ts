/**
 * `keen acp`: Keen as an Agent Client Protocol agent (JSON-RPC over stdio) for editors — Zed,
 * the JetBrains IDEs, Neovim and Emacs plugins. Each `session/new` or `session/load` opens a Keen
 * session in the client's folder with the options `keen acp` was started with; prompts run
 * through the same controller, tool loop, permissions and compaction as the terminal.
 */
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import type { SessionFlags } from '../agent/flags.js';
import { openSession } from '../agent/open-session.js';
import { errorText } from '../errors.js';
import { scrubText } from '../security/scrubber.js';
import { VERSION } from '../version.js';
import { AcpGate } from './acp-gate.js';
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
  if (path.resolve(cwd) === path.resolve(own) || (!flags.trust && !flags.yolo)) return flags;
  const { trust: _t, yolo, ...rest } = flags;
  return yolo ? { ...rest, permissionMode: 'bypassPermissions' } : rest;
}

/** The agent app; `connect` it to a stream. Sessions close when the connection does. */
export function keenAgent(opts: AcpOptions): { app: acp.AgentApp; closeAll: () => Promise<void> } {
  const sessions = new Map<string, AcpSession>();
  let compactionUpdates = false;

  const find = (id: string): AcpSession => {
    const s = sessions.get(id);
    if (!s) throw acp.RequestError.sessionNotFound(id);
    return s;
  };

  async function open(client: acp.AgentContext, cwd: string, requested: SessionFlags): Promise<AcpSession> {
    if (!path.isAbsolute(cwd)) throw acp.RequestError.invalidParams(undefined, `cwd must be an absolute path: ${cwd}`);
    const flags = sessionFlagsFor(requested, cwd, opts.cwd);
    let session: AcpSession | undefined;
    const gate = new AcpGate((request) => (session ? session.ask(request) : Promise.resolve('deny')));
    let live: Awaited<ReturnType<typeof openSession>>;
    try {
      live = await openSession({ cwd, env: opts.env, flags, interactive: false, permissions: gate, onWarning: opts.onWarning });
    } catch (err) {
      throw acp.RequestError.invalidParams(undefined, scrubText(errorText(err)));
    }
    gate.configure(live.policy);
    for (const w of live.warnings) opts.onWarning(`keen: warning: ${w}`);
    // Everything sent to the editor is redacted as stream-json lines are: editors keep threads.
    const clean = <T>(value: T): T => {
      const text = JSON.stringify(value);
      const redacted = live.store.redactText(text);
      return redacted === text ? value : (JSON.parse(redacted) as T);
    };
    const peer = {
      compactionUpdates,
      update: (update: acp.SessionUpdate) => client.notify(acp.methods.client.session.update, { sessionId: live.sessionId, update: clean(update) }),
      requestPermission: (params: Omit<acp.RequestPermissionRequest, 'sessionId'>) =>
        client.request(acp.methods.client.session.requestPermission, { sessionId: live.sessionId, ...clean(params) }),
    };
    session = new AcpSession(live, peer, cwd);
    sessions.set(live.sessionId, session);
    return session;
  }

  const announceCommands = (client: acp.AgentContext, s: AcpSession) =>
    client.notify(acp.methods.client.session.update, {
      sessionId: s.live.sessionId,
      update: { sessionUpdate: 'available_commands_update', availableCommands: s.commands() },
    });

  const app = acp
    .agent({ name: 'keen' })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      compactionUpdates = params.clientCapabilities?.session?.compaction != null;
      return {
        protocolVersion: acp.PROTOCOL_VERSION,
        agentInfo: { name: 'keen', version: VERSION },
        agentCapabilities: { loadSession: true, promptCapabilities: { image: modelTakesImages(opts.flags, opts.cwd, opts.env), audio: false, embeddedContext: true } },
        authMethods: [],
      };
    })
    .onRequest(acp.methods.agent.session.new, async ({ params, client }) => {
      const s = await open(client, params.cwd, opts.flags);
      // After the response: the client learns the session id first.
      setImmediate(() => void announceCommands(client, s).catch(() => undefined));
      return { sessionId: s.live.sessionId, modes: s.modes };
    })
    .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
      const s = await open(client, params.cwd, { ...opts.flags, session: params.sessionId });
      await s.replay();
      setImmediate(() => void announceCommands(client, s).catch(() => undefined));
      return { modes: s.modes };
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
