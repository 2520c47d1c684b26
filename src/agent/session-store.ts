/**
 * The session's store once the model is known: a new session's deferred store (nothing on disk
 * until its first record), or the resumed one told of a model change; and the sink the controller
 * writes turns through, which starts each turn's file checkpoints.
 */
import { assertWritableBelow } from '../config/home-writable.js';
import type { ResolvedModel } from '../config/resolve.js';
import { redactText } from '../transcript/redact.js';
import { newSessionId, sessionDir, transcriptPath } from '../transcript/paths.js';
import { SessionStore } from '../transcript/store.js';
import type { FileCheckpoints } from '../undo/file-checkpoints.js';
import { VERSION } from '../version.js';
import { DeferredSessionStore, type SessionSink } from './deferred-store.js';
import type { StoredSession } from './session-resume.js';
import type { TranscriptSink } from './session-controller.js';

/**
 * The store the session writes to: `stored`'s (recording `model_changed` when the model differs
 * from the one it last used; never when opened to inspect), or a new deferred one whose home
 * folder is checked writable first (not when inspecting).
 */
export async function sessionStore(
  at: { cwd: string; env: NodeJS.ProcessEnv; home: string; inspect?: boolean; newSessionId?: string },
  resolved: ResolvedModel,
  stored: StoredSession | undefined,
  secrets: { store: readonly string[]; redacted: readonly string[] },
): Promise<SessionSink> {
  if (stored) {
    const was = stored.model;
    if (!at.inspect && was && (was.provider !== resolved.provider || was.model !== resolved.name)) {
      await stored.store.append({ kind: 'model_changed', provider: resolved.provider, model: resolved.name });
    }
    return stored.store;
  }
  const { home, cwd } = at;
  const id = at.newSessionId ?? newSessionId();
  if (!at.inspect) assertWritableBelow(home, sessionDir(home, cwd, id));
  return new DeferredSessionStore(
    id,
    sessionDir(home, cwd, id),
    transcriptPath(home, cwd, id),
    (sid) => SessionStore.create(home, { id: sid, cwd, provider: resolved.provider, model: resolved.name, keenVersion: VERSION, env: at.env, secrets: [...secrets.store] }),
    (text) => redactText(text, secrets.redacted),
  );
}

/** What the controller writes turns through: `store`, starting a checkpoint turn when its user message is on disk. */
export function turnSink(store: SessionSink, checkpoints: FileCheckpoints): TranscriptSink {
  return {
    append: async (record) => {
      const written = await store.append(record);
      if (written.kind === 'user_message') checkpoints.beginTurn(written.seq);
      return written;
    },
    appendBatch: (records) => store.appendBatch(records),
    redactText: (text) => store.redactText(text),
  };
}
