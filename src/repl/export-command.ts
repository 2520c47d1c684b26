/**
 * `/export [FILE]`: the current session as one HTML page (docs/export.md), read from its
 * transcript on disk, so turns before a compaction are on it too. Nothing is sent to the model.
 */
import { errorText } from '../errors.js';
import { defaultPageName, limitsOf, writeSessionPage } from '../export/write-page.js';
import { loadTranscript } from '../transcript/reader.js';
import type { LiveSession } from '../agent/open-session.js';
import type { NoticeTone } from './state/ui-state.js';

export interface ExportCommandHost {
  readonly cwd: string;
  requireSession(): LiveSession;
  notice(text: string, tone?: NoticeTone): void;
}

export async function exportCommand(rt: ExportCommandHost, file: string): Promise<void> {
  const session = rt.requireSession();
  if (!session.store.persisted) {
    rt.notice('Nothing to export yet: this session has no messages.', 'muted');
    return;
  }
  try {
    const { records } = await loadTranscript(session.store.path);
    const input = { sessionId: session.sessionId, records, limits: limitsOf(session.budget), exportedAt: new Date() };
    const target = await writeSessionPage(file || defaultPageName(session.sessionId), rt.cwd, input);
    rt.notice(`Exported the session to ${target}`, 'success');
  } catch (err) {
    rt.notice(`Could not export the session: ${errorText(err).replace(/^could not write /, '')}`, 'error');
  }
}
