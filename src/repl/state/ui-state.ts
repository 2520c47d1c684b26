/**
 * Everything the REPL shows, as one immutable value. The transcript (`items`) is append-only and
 * rendered through Ink's `<Static>`: an item is printed once and never redrawn, which keeps long
 * sessions fast. Only `live` (the unfinished line of streamed text and a running tool), the
 * loader, the prompt and the footer are redrawn.
 */
import type { PermissionRequest } from '../../tools/types.js';
import type { EditorCommand, EditorState } from '../input/editor.js';
import type { MarkdownLine, MarkdownState } from '../markdown/markdown-lines.js';

export type ToolStatus = 'running' | 'done' | 'error';

export interface ToolCardData {
  id: string;
  name: string;
  /** The arguments on one line (the tool summary without the tool's name). */
  args: string;
  status: ToolStatus;
  /** The result text ('' while running). */
  output: string;
  /** A unified diff, for edits and writes. */
  diff?: string;
  /** A running subagent (`task`): its name, requests so far and current tool. */
  child?: { agent: string; turns: number; tool?: string };
  /** The tail of what a running call printed so far (bash), kept when it is cancelled. */
  live?: string;
  /** A PreToolUse hook changed the call's input: `args` and `diff` are what ran (a marker line says so). */
  inputChanged?: boolean;
}

export type NoticeTone = 'info' | 'success' | 'warning' | 'error' | 'muted';

export type TranscriptItem =
  | { kind: 'banner'; id: number; version: string; cwd: string }
  | { kind: 'user'; id: number; text: string; attachments: string[] }
  /** Committed lines of assistant text; `lead` marks the first lines of a segment. */
  | { kind: 'markdown'; id: number; lines: MarkdownLine[]; lead: boolean }
  /**
   * A segment of assistant Markdown from a stored session (`--resume`), classified when first
   * drawn: a long replay draws most of its items in the background (scrollback.ts).
   */
  | { kind: 'replayed'; id: number; text: string }
  | { kind: 'tool'; id: number; card: ToolCardData; expanded: boolean }
  | { kind: 'notice'; id: number; text: string; tone: NoticeTone }
  | { kind: 'error'; id: number; title: string; message: string }
  /** Command output; `palette` colours its glyphs (`context`: the bar of `/context`). */
  | { kind: 'block'; id: number; title: string; lines: string[]; palette?: 'context' }
  /** A whole diff a permission prompt had to cut to fit the terminal, written above the prompt. */
  | { kind: 'diff'; id: number; title: string; diff: string };

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
export type NewItem = WithoutId<TranscriptItem>;

/** The turn being streamed: what is not committed to the transcript yet. */
export interface LiveTurn {
  mode: 'chat' | 'compact';
  /** Streamed text not committed yet: held blank lines and the unfinished last line. */
  pending: string;
  /** Markdown state at the start of `pending`. */
  md: MarkdownState;
  /** The next committed text starts a segment (a marker and a blank line above it). */
  lead: boolean;
  tool?: ToolCardData;
}

export interface Busy {
  kind: 'chat' | 'compact' | 'command';
  /** Loader text: `Thinking…`, `Responding…`, `Running bash…`, `Compacting...`. */
  status: string;
  /** An automatic compaction is running inside the chat turn. */
  autoCompacting: boolean;
  /** When the turn started (ms, the clock runTurn was given): the loader shows the seconds since. */
  startedAt?: number;
  /** Output tokens the provider reported for this turn's finished requests. */
  reportedTokens?: number;
  /** Estimated tokens streamed (text and reasoning) since the last report. */
  streamedTokens?: number;
  /** The context a running compaction summarises (tokens, the session's measure when it started). */
  summarising?: number;
}

export interface SessionInfo {
  sessionId: string;
  provider: string;
  model: string;
  inputBudget: number;
  /** The context window (the budget's): the footer's percentage is of it, as `/context`'s is. */
  window: number;
  /** Estimated input tokens of the next request. */
  contextTokens: number;
  /** The agent mode (`plan` shows in the footer). */
  mode?: 'plan' | 'build';
  /** The permission mode; the footer names it unless it is `default`. */
  permissionMode?: string;
}

export interface PickerOption {
  value: string;
  label: string;
  hint?: string;
}

export interface PickerView {
  kind: 'resume' | 'model' | 'rewind';
  title: string;
  options: PickerOption[];
  /** Index into the options the filter lets through (`shownOptions`). */
  selected: number;
  /** Typed while the picker is open: only options holding every word are listed. */
  filter?: string;
}

export interface PermissionView {
  request: PermissionRequest;
  /** 0 allow once, 1 allow for this session, 2 deny. */
  selected: number;
  /** The whole diff was written to the transcript above the prompt (it did not fit the terminal). */
  fullDiffAbove?: boolean;
}

export interface UiState {
  items: TranscriptItem[];
  /** Bumped when the transcript is replaced (/clear, /resume): remounts `<Static>`. */
  epoch: number;
  /**
   * Leading items `<Static>` does not draw: a long replay leaves them to plain scrollback
   * (scrollback.ts), written above the frame. 0 in most states.
   */
  scrollback: number;
  nextId: number;
  live?: LiveTurn;
  busy?: Busy;
  /** Inputs typed while busy, run in order afterwards. */
  queue: string[];
  editor: EditorState;
  /** Tab-completion candidates shown under the prompt. */
  candidates: string[];
  permission?: PermissionView;
  picker?: PickerView;
  session?: SessionInfo;
  /** Ctrl+C was pressed once while idle: the next one exits. */
  exitArmed: boolean;
  /** Tool cards show their whole output (Ctrl+O). */
  expandTools: boolean;
  /** The REPL is ending: only the transcript stays on screen. */
  closed: boolean;
}

export type AutoCompactionPhase = 'started' | 'cancelled' | 'failed' | 'applied';

export type UiAction =
  | { type: 'edit'; command: EditorCommand }
  | { type: 'candidates'; candidates: string[] }
  | { type: 'session'; info: SessionInfo }
  | { type: 'context'; tokens: number }
  /**
   * Replace the transcript (a new or resumed session). `scrollback`: how many of the leading
   * `items` are written as plain scrollback instead of through `<Static>`.
   */
  | { type: 'reset'; items: NewItem[]; scrollback?: number }
  /** Add items; with `scrollback`, every earlier item and that many new ones go to plain scrollback. */
  | { type: 'append'; items: NewItem[]; scrollback?: number }
  /** `at`: the clock's time (ms) when the turn started. */
  | { type: 'turn-start'; mode: 'chat' | 'compact'; status: string; at?: number }
  | { type: 'command-busy'; status: string | undefined }
  | { type: 'text'; text: string }
  /** Streamed reasoning: not shown, but counted (the model is thinking). */
  | { type: 'reasoning'; text: string }
  /** A request of the turn finished and the provider reported its output tokens. */
  | { type: 'output-usage'; tokens: number }
  | { type: 'tool-start'; card: ToolCardData }
  | { type: 'tool-diff'; diff: string }
  /** A hook changed the running call's input: its card is redrawn from the call as it runs. */
  | { type: 'tool-input'; card: ToolCardData }
  | { type: 'tool-end'; id: string; status: ToolStatus; output: string }
  /** A subagent's progress on the running `task` card. */
  | { type: 'tool-progress'; id: string; child: NonNullable<ToolCardData['child']> }
  /** The tail of a running call's output so far (replaces the previous one). */
  | { type: 'tool-output'; id: string; tail: string }
  | { type: 'mode'; mode: 'plan' | 'build' }
  | { type: 'auto-compaction'; phase: AutoCompactionPhase; reason?: string }
  /** An automatic compaction is durable: commit what is visible, then the notice. */
  | { type: 'checkpoint' }
  /** Commit everything streamed so far (before an error card, a notice, the end). */
  | { type: 'flush' }
  | { type: 'turn-end' }
  | { type: 'queue-push'; text: string }
  | { type: 'queue-shift' }
  /** Empty the queue (its messages went back to the input for editing). */
  | { type: 'queue-clear' }
  | { type: 'permission-open'; request: PermissionRequest; fullDiffAbove?: boolean }
  /** The open prompt's whole detail was written above it (the terminal shrank). */
  | { type: 'permission-detail-above' }
  | { type: 'permission-move'; delta: number }
  | { type: 'permission-close' }
  | { type: 'picker-open'; picker: Omit<PickerView, 'selected'> & { selected?: number } }
  | { type: 'picker-move'; delta: number }
  /** The picker's filter text changed (typed, or a character erased). */
  | { type: 'picker-filter'; filter: string }
  | { type: 'picker-close' }
  | { type: 'exit-armed'; armed: boolean }
  | { type: 'toggle-expand' }
  | { type: 'close' };

export const STATUS_THINKING = 'Thinking…';
export const STATUS_RESPONDING = 'Responding…';
export const STATUS_COMPACTING = 'Compacting...';
export const NOTICE_AUTO_COMPACTED = 'Context compacted automatically';
/** Inputs waiting while the agent is busy, at most. */
export const QUEUE_LIMIT = 5;

export function runningStatus(tool: string): string {
  return `Running ${tool}…`;
}
