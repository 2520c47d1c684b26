/**
 * The REPL's UI reducer: pure, one case per action. Streamed text is committed to the transcript
 * one complete line at a time (markdown state carried across), so the redrawn part of the screen
 * stays a line or two however long the answer gets.
 */
import { editorReducer, emptyEditor } from '../input/editor.js';
import { endedOutput } from '../card-output.js';
import { classifyLines, openBlockRows, type MarkdownState } from '../markdown/markdown-lines.js';
import { estimateText } from '../../tokens/text-tokens.js';
import { compactionFailedTail } from '../../core/compaction-notice.js';
import { shownOptions } from './picker-filter.js';
import {
  NOTICE_AUTO_COMPACTED,
  QUEUE_LIMIT,
  STATUS_COMPACTING,
  STATUS_RESPONDING,
  STATUS_THINKING,
  runningStatus,
  type Busy,
  type LiveTurn,
  type NewItem,
  type TranscriptItem,
  type UiAction,
  type UiState,
} from './ui-state.js';

export function initialUiState(init: Partial<Pick<UiState, 'items' | 'editor' | 'session'>> = {}): UiState {
  const items = init.items ?? [];
  return {
    items,
    epoch: 0,
    scrollback: 0,
    nextId: items.reduce((n, i) => Math.max(n, i.id + 1), 1),
    queue: [],
    editor: init.editor ?? emptyEditor(),
    candidates: [],
    session: init.session,
    exitArmed: false,
    expandTools: false,
    closed: false,
  };
}

function withItems(s: UiState, add: readonly NewItem[]): UiState {
  if (add.length === 0) return s;
  let id = s.nextId;
  const items = [...s.items];
  for (const item of add) items.push({ ...item, id: id++ } as TranscriptItem);
  return { ...s, items, nextId: id };
}

const isBlank = (line: string) => line.trim() === '';

/** Commit `lines` of a segment as one markdown item; returns the state and the new markdown state. */
function commitLines(s: UiState, live: LiveTurn, lines: string[]): { state: UiState; live: LiveTurn } {
  let from = 0;
  if (live.lead) while (from < lines.length && isBlank(lines[from])) from++;
  const take = lines.slice(from);
  if (take.length === 0) return { state: s, live };
  const classified = classifyLines(take, live.md);
  const state = withItems(s, [{ kind: 'markdown', lines: classified.lines, lead: live.lead }]);
  return { state, live: { ...live, md: classified.state, lead: false } };
}

/** Append streamed text: commit complete lines, hold trailing blank lines and the partial line. */
function appendText(s: UiState, text: string): UiState {
  const live = s.live;
  if (!live || !text) return s;
  const pending = live.pending + text;
  // No new line break: the complete lines held in `pending` were already judged.
  if (!text.includes('\n')) return { ...s, live: { ...live, pending } };
  const lastNl = pending.lastIndexOf('\n');
  const complete = pending.slice(0, lastNl).split('\n');
  let keep = complete.length;
  while (keep > 0 && isBlank(complete[keep - 1])) keep--;
  // A table or a list that may still grow is committed whole once it ends (a table's columns
  // depend on every row, a list's nesting and numbering on its items).
  keep -= openBlockRows(complete.slice(0, keep), live.md, keep < complete.length);
  // Blank lines alone are held for the block after them: Ink's <Static> drops an item whose
  // output is one empty line, so a blank line before a held table or list was lost.
  if (complete.slice(0, keep).every(isBlank)) keep = 0;
  const held = complete.slice(keep);
  const rest = pending.slice(lastNl + 1);
  const committed = commitLines(s, live, complete.slice(0, keep));
  const nextPending = held.map((l) => `${l}\n`).join('') + rest;
  return { ...committed.state, live: { ...committed.live, pending: nextPending } };
}

/** Commit everything pending (trailing blank lines dropped) and start a new segment. */
function flushLive(s: UiState): UiState {
  const live = s.live;
  if (!live) return s;
  const lines = live.pending.split('\n');
  while (lines.length > 0 && isBlank(lines[lines.length - 1])) lines.pop();
  const committed = commitLines(s, live, lines);
  const md: MarkdownState = {};
  return { ...committed.state, live: { ...committed.live, pending: '', md, lead: true } };
}

function setStatus(s: UiState, status: string, autoCompacting = false): UiState {
  if (!s.busy) return s;
  const summarising = autoCompacting ? s.busy.summarising : s.busy.kind === 'compact' ? s.busy.summarising : undefined;
  return { ...s, busy: { ...s.busy, status, autoCompacting, summarising } };
}

/**
 * Streamed text or reasoning: its estimated tokens join the turn's count; a chat turn's loader
 * says `Responding…` while text streams and `Thinking…` while the model reasons.
 */
function streamed(s: UiState, text: string, kind: 'text' | 'reasoning'): UiState {
  const busy = s.busy;
  if (!busy || !text) return s;
  const next: Busy = { ...busy, streamedTokens: (busy.streamedTokens ?? 0) + estimateText(text) };
  if (busy.kind === 'chat' && !busy.autoCompacting) {
    if (kind === 'text' && busy.status === STATUS_THINKING) next.status = STATUS_RESPONDING;
    if (kind === 'reasoning' && busy.status === STATUS_RESPONDING) next.status = STATUS_THINKING;
  }
  return { ...s, busy: next };
}

function clamp(n: number, max: number): number {
  return max <= 0 ? 0 : ((n % max) + max) % max;
}

export function uiReducer(s: UiState, a: UiAction): UiState {
  switch (a.type) {
    case 'edit': {
      const editor = editorReducer(s.editor, a.command);
      if (editor === s.editor) return s;
      const typed = editor.text !== s.editor.text;
      return { ...s, editor, candidates: typed ? [] : s.candidates, exitArmed: typed ? false : s.exitArmed };
    }
    case 'candidates':
      return { ...s, candidates: a.candidates };
    case 'session':
      return { ...s, session: a.info };
    case 'mode':
      return s.session ? { ...s, session: { ...s.session, mode: a.mode } } : s;
    case 'tool-progress':
      return s.live?.tool?.id === a.id ? { ...s, live: { ...s.live, tool: { ...s.live.tool, child: a.child } } } : s;
    case 'tool-output':
      return s.live?.tool?.id === a.id && s.live.tool.status === 'running' ? { ...s, live: { ...s.live, tool: { ...s.live.tool, live: a.tail } } } : s;
    case 'context':
      return s.session ? { ...s, session: { ...s.session, contextTokens: a.tokens } } : s;
    case 'reset':
      return withItems({ ...s, items: [], epoch: s.epoch + 1, scrollback: a.scrollback ?? 0, live: undefined, candidates: [] }, a.items);
    case 'append':
      return withItems(a.scrollback ? { ...s, scrollback: s.items.length + a.scrollback } : s, a.items);
    case 'turn-start':
      return {
        ...s,
        live: { mode: a.mode, pending: '', md: {}, lead: true },
        busy: {
          kind: a.mode,
          status: a.status,
          autoCompacting: false,
          ...(a.at !== undefined ? { startedAt: a.at } : {}),
          ...(a.mode === 'compact' && s.session ? { summarising: s.session.contextTokens } : {}),
        },
        exitArmed: false,
      };
    case 'command-busy':
      return a.status === undefined ? { ...s, busy: undefined } : { ...s, busy: { kind: 'command', status: a.status, autoCompacting: false } };
    case 'text':
      return appendText(streamed(s, a.text, 'text'), a.text);
    case 'reasoning':
      return streamed(s, a.text, 'reasoning');
    case 'output-usage':
      return s.busy && a.tokens > 0 ? { ...s, busy: { ...s.busy, reportedTokens: (s.busy.reportedTokens ?? 0) + a.tokens, streamedTokens: 0 } } : s;
    case 'tool-start': {
      const flushed = flushLive(s);
      if (!flushed.live) return s;
      const status = flushed.busy?.kind === 'compact' ? STATUS_COMPACTING : runningStatus(a.card.name);
      return setStatus({ ...flushed, live: { ...flushed.live, tool: a.card } }, status);
    }
    case 'tool-input': {
      const tool = s.live?.tool;
      if (!s.live || tool?.id !== a.card.id) return s;
      const { diff: _modelDiff, ...kept } = tool;
      return { ...s, live: { ...s.live, tool: { ...kept, args: a.card.args, ...(a.card.diff ? { diff: a.card.diff } : {}), inputChanged: true } } };
    }
    case 'tool-diff':
      return s.live?.tool ? { ...s, live: { ...s.live, tool: { ...s.live.tool, diff: a.diff } } } : s;
    case 'tool-end': {
      const live = s.live;
      if (!live?.tool || live.tool.id !== a.id) return s;
      const card = { ...live.tool, status: a.status, output: endedOutput(live.tool, a.output), live: undefined };
      const next = withItems(s, [{ kind: 'tool', card, expanded: s.expandTools }]);
      const status = s.busy?.kind === 'compact' ? STATUS_COMPACTING : STATUS_THINKING;
      return setStatus({ ...next, live: { ...live, tool: undefined, lead: true } }, status);
    }
    case 'auto-compaction': {
      if (a.phase === 'started') {
        const started = s.busy && s.session ? { ...s, busy: { ...s.busy, summarising: s.session.contextTokens } } : s;
        return setStatus(started, STATUS_COMPACTING, true);
      }
      const restored = setStatus(s, STATUS_THINKING);
      if (a.phase === 'cancelled') return withItems(flushLive(restored), [{ kind: 'notice', text: 'Automatic compaction cancelled; continuing without it', tone: 'muted' }]);
      if (a.phase === 'failed') {
        return withItems(flushLive(restored), [{ kind: 'notice', text: `Automatic compaction failed: ${compactionFailedTail(a.reason)}`, tone: 'warning' }]);
      }
      return restored;
    }
    case 'checkpoint':
      return withItems(flushLive(setStatus(s, STATUS_THINKING)), [{ kind: 'notice', text: NOTICE_AUTO_COMPACTED, tone: 'success' }]);
    case 'flush':
      return flushLive(s);
    case 'turn-end': {
      const flushed = flushLive(s);
      return { ...flushed, live: undefined, busy: undefined };
    }
    case 'queue-push':
      return s.queue.length >= QUEUE_LIMIT ? s : { ...s, queue: [...s.queue, a.text] };
    case 'queue-shift':
      return { ...s, queue: s.queue.slice(1) };
    case 'queue-clear':
      return s.queue.length ? { ...s, queue: [] } : s;
    case 'permission-open':
      return { ...s, permission: { request: a.request, selected: 0, ...(a.fullDiffAbove ? { fullDiffAbove: true } : {}) } };
    case 'permission-detail-above':
      return s.permission ? { ...s, permission: { ...s.permission, fullDiffAbove: true } } : s;
    case 'permission-move':
      return s.permission ? { ...s, permission: { ...s.permission, selected: clamp(s.permission.selected + a.delta, 3) } } : s;
    case 'permission-close':
      return { ...s, permission: undefined };
    case 'picker-open':
      return { ...s, picker: { ...a.picker, selected: a.picker.selected ?? 0 } };
    case 'picker-move':
      return s.picker ? { ...s, picker: { ...s.picker, selected: clamp(s.picker.selected + a.delta, shownOptions(s.picker).length) } } : s;
    case 'picker-filter':
      return s.picker && a.filter !== (s.picker.filter ?? '') ? { ...s, picker: { ...s.picker, filter: a.filter, selected: 0 } } : s;
    case 'picker-close':
      return { ...s, picker: undefined };
    case 'exit-armed':
      return { ...s, exitArmed: a.armed };
    case 'toggle-expand':
      return { ...s, expandTools: !s.expandTools };
    case 'close':
      return { ...flushLive(s), live: undefined, busy: undefined, permission: undefined, picker: undefined, closed: true };
  }
}
