/**
 * The transcript a resumed session shows before the prompt: stored user prompts, assistant text
 * with tool cards at their offsets, compaction markers and model switches (from
 * `replayTranscript`). Tool output is not stored, so replayed cards show their summary only.
 */
import type { LiveSession } from '../agent/open-session.js';
import { MANUAL_COMPACTION_STATUS } from '../agent/session-controller.js';
import type { SessionRecord } from '../transcript/records.js';
import { replayTranscript } from '../transcript/projection.js';
import { withoutRewound } from '../undo/rewound.js';
import { splitAttachments } from './input/mentions.js';
import { NOTICE_AUTO_COMPACTED, type NewItem } from './state/ui-state.js';
import { parseShellMessage } from './shell-message.js';
import { clipOutput } from './card-output.js';
import { argsOf } from './tool-cards.js';

/**
 * Items replayed at most; older ones are summarised in one line. Only the last screens go through
 * `<Static>` before the prompt (scrollback.ts), the rest is written as plain scrollback in the
 * background, so this bounds background work and memory (a 500-turn session is ~2,000 items).
 */
export const REPLAY_LIMIT = 3000;

/** Classified when drawn, not here: most items of a long replay are drawn in the background. */
function markdown(text: string): NewItem | undefined {
  const trimmed = text.replace(/^\s*\n/, '').replace(/\s+$/, '');
  return trimmed ? { kind: 'replayed', text: trimmed } : undefined;
}

const WRAPPED_RE = /^<compacted_context>\n?([\s\S]*?)\n?<\/compacted_context>/;
const INDEX_RE = /<artifact_index>[\s\S]*?<\/artifact_index>/g;

/**
 * What the user sees of a stored summary message: the summary text without the
 * `<compacted_context>` wrapper, the artifact index (meant for the model) or a
 * `<last_user_message>` block, and how many artifacts the index listed.
 */
export function summaryForDisplay(content: string): { summary: string; artifacts: number } {
  const inner = WRAPPED_RE.exec(content)?.[1] ?? content;
  let artifacts = 0;
  for (const block of inner.match(INDEX_RE) ?? []) artifacts += block.split('\n').filter((l) => /^- artifact#\d+/.test(l.trim())).length;
  return { summary: inner.replace(INDEX_RE, '').trim(), artifacts };
}

function artifactsLine(n: number): string {
  return `${n} earlier tool ${n === 1 ? 'output is' : 'outputs are'} stored; the model can recall ${n === 1 ? 'it' : 'them'}`;
}

export function replayItems(records: readonly SessionRecord[], limit = REPLAY_LIMIT, complete = true): NewItem[] {
  const bySeq = new Map(records.map((r) => [r.seq, r]));
  const items: NewItem[] = [];
  // Turns a rewind took back are not shown (as the model no longer has them).
  for (const r of replayTranscript(withoutRewound(records))) {
    switch (r.type) {
      case 'user': {
        const shell = parseShellMessage(r.text);
        if (shell) {
          // A `!command`: what the user typed and its bash card, as when it ran.
          const failed = !/\n\[exit code 0\]$/.test(shell.output);
          items.push(
            { kind: 'user', text: `!${shell.command}`, attachments: [] },
            {
              kind: 'tool',
              card: { id: `shell-${r.seq}`, name: 'bash', args: shell.command, status: failed ? 'error' : 'done', output: clipOutput(shell.output) },
              expanded: false,
            },
          );
          break;
        }
        const { text, attachments } = splitAttachments(r.text);
        // The file names of attached images are not stored: the type and size name them.
        for (const i of r.images ?? []) attachments.push(`image (${i.media_type.replace('image/', '').toUpperCase()}, ${(i.bytes / 1024).toFixed(1)} KB)`);
        items.push({ kind: 'user', text, attachments });
        break;
      }
      case 'assistant':
        for (const seg of r.segments) {
          if (seg.type === 'text') {
            const item = markdown(seg.text);
            if (item) items.push(item);
          } else {
            const t = seg.tool;
            items.push({
              kind: 'tool',
              card: { id: t.id, name: t.name, args: argsOf(t.summary, t.name), status: t.is_error ? 'error' : 'done', output: '' },
              expanded: false,
            });
          }
        }
        break;
      case 'compaction': {
        if (r.mode === 'auto') {
          items.push({ kind: 'notice', text: NOTICE_AUTO_COMPACTED, tone: 'success' });
          break;
        }
        const record = bySeq.get(r.seq);
        const stored = record?.kind === 'compaction_applied' ? record.messages.find((m) => m.role === 'user')?.content : undefined;
        const shown = stored ? summaryForDisplay(stored) : undefined;
        const item = shown ? markdown(shown.summary) : undefined;
        if (item) items.push(item);
        if (shown && shown.artifacts > 0) items.push({ kind: 'notice', text: artifactsLine(shown.artifacts), tone: 'muted' });
        items.push({ kind: 'notice', text: r.status || MANUAL_COMPACTION_STATUS, tone: 'success' });
        break;
      }
      case 'model_changed':
        items.push({ kind: 'notice', text: `Model: ${r.provider}/${r.model}`, tone: 'muted' });
        break;
    }
  }
  if (!complete) {
    // A long transcript was read from its end (SHOWN_BUDGET in src/agent/session-resume.ts): how much came before is not counted.
    return [{ kind: 'notice', text: EARLIER_NOT_READ, tone: 'muted' }, ...items.slice(-limit)];
  }
  if (items.length <= limit) return items;
  const hidden = items.length - limit;
  return [{ kind: 'notice', text: `… ${hidden} earlier ${hidden === 1 ? 'item' : 'items'} not shown`, tone: 'muted' }, ...items.slice(-limit)];
}

/** The first line of a replay that starts partway through a long transcript. */
export const EARLIER_NOT_READ = '… earlier conversation not shown (a long transcript; `/rewind` lists every prompt)';

/**
 * What a session shows as it becomes current: its replay (unless `keep`: a model switch keeps
 * the screen), a muted line when it resumed a conversation, and its warnings.
 */
export function openingItems(session: Pick<LiveSession, 'shown' | 'sessionId' | 'warnings'>, keep: boolean): NewItem[] {
  const { records, complete } = session.shown;
  const items = keep ? [] : replayItems(records, REPLAY_LIMIT, complete);
  if (!keep && records.some((r) => r.kind === 'user_message')) items.push({ kind: 'notice', text: `Resumed session ${session.sessionId}`, tone: 'muted' });
  for (const w of session.warnings) items.push({ kind: 'notice', text: w, tone: 'warning' });
  return items;
}
