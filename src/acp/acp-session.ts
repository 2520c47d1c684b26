/**
 * One ACP session: a Keen LiveSession driven by `session/prompt`, its events sent to the client as
 * `session/update` notifications in stream order, its permission questions asked through
 * `session/request_permission`. One prompt at a time; `cancel` ends it as Ctrl+C does.
 */
import type * as acp from '@agentclientprotocol/sdk';
import type { LiveSession } from '../agent/open-session.js';
import type { ControllerEvent } from '../agent/session-controller.js';
import { partsOf, type ToolCall } from '../core/message.js';
import type { SessionAnswer } from '../tools/permissions/index.js';
import type { PermissionMode } from '../tools/permissions/modes.js';
import type { PermissionRequest } from '../tools/types.js';
import { describeRetryWait } from '../net/retry-fetch.js';
import { knownCredentials, scrubText } from '../security/scrubber.js';
import { StreamScrubber } from '../security/stream-scrubber.js';
import { replayTranscript } from '../transcript/projection.js';
import { withoutRewound } from '../undo/rewound.js';
import { summaryHead, summaryText } from '../compaction/compactor.js';
import { configOptions, type ModelChoice } from './config-options.js';
import { promptText } from './prompt-text.js';
import { permissionToolCall, storedToolCall, textChunk, toolCallFinished, toolCallInputChanged, toolCallStarted, toolCallTerminal } from './updates.js';

/** The client's side of a session: where updates and permission questions go. */
export interface AcpPeer {
  update(update: acp.SessionUpdate): Promise<void>;
  requestPermission(params: Omit<acp.RequestPermissionRequest, 'sessionId'>): Promise<acp.RequestPermissionResponse>;
  /** The client takes `compaction_update` (its `session.compaction` capability). */
  compactionUpdates: boolean;
}

export const MODES: acp.SessionMode[] = [
  { id: 'default', name: 'Default', description: 'Ask before edits and commands' },
  { id: 'acceptEdits', name: 'Accept edits', description: 'Edit files without asking; ask before commands' },
  { id: 'plan', name: 'Plan', description: 'Read and plan; nothing is changed' },
  { id: 'bypassPermissions', name: 'Bypass permissions', description: 'Run everything without asking (deny rules still hold)' },
];

const STOP: Record<string, acp.StopReason> = { end_turn: 'end_turn', max_tokens: 'max_tokens', max_turns: 'max_turn_requests', refusal: 'refusal' };

const OPTIONS: acp.PermissionOption[] = [
  { optionId: 'once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'session', name: 'Allow for this session', kind: 'allow_always' },
  { optionId: 'deny', name: 'Reject', kind: 'reject_once' },
];

/** The first update of a `session/load` that replays only the later part of a long transcript. */
export const EARLIER_NOT_SHOWN = '… earlier turns not shown (a long transcript: only its later part was read)';

/** A turn that failed: the prompt request answers with its one line. */
export class TurnFailed extends Error {}

export class AcpSession {
  private turn?: AbortController;
  private compactions = 0;
  /** A `/compact` runs and the client takes compaction updates: its summary streams into the card. */
  private summaryCard = false;
  /** The editor terminal each running bash call runs in (its card embeds it). */
  private readonly terminals = new Map<string, string>();
  /** Streamed text is sent scrubbed, a credential split across deltas included. */
  private readonly answer = new StreamScrubber((t) => scrubText(t), knownCredentials);
  private readonly thought = new StreamScrubber((t) => scrubText(t), knownCredentials);

  /** The editor's id of the session (Keen's first id; a model switch keeps it). */
  readonly id: string;

  constructor(
    public live: LiveSession,
    private readonly peer: AcpPeer,
    private readonly cwd: string,
    private readonly models: { choices: readonly ModelChoice[]; reopen: (choice: ModelChoice) => Promise<{ live: LiveSession; error?: unknown }> },
  ) {
    this.id = live.sessionId;
  }

  get configOptions(): acp.SessionConfigOption[] {
    return configOptions(this.modes, this.models.choices, this.live.model);
  }

  /** `session/set_config_option`: the mode, or the model (the session reopens on it, history kept). */
  async setConfigOption(id: string, value: string): Promise<void> {
    if (id === 'mode') return this.setMode(value);
    if (id !== 'model') throw new TurnFailed(`unknown config option "${id}"; choose mode or model`);
    const choice = this.models.choices.find((c) => c.name === value);
    if (!choice) throw new TurnFailed(`unknown model "${value}"; choose one of ${this.models.choices.map((c) => c.name).join(', ')}`);
    if (choice.name === this.live.model) return;
    if (this.turn) throw new TurnFailed('a prompt is running in this session; switch the model when it ends');
    const mode = this.modes.currentModeId;
    const { live, error } = await this.models.reopen(choice);
    this.live = live;
    this.setMode(mode);
    if (error !== undefined) throw error;
  }

  get modes(): acp.SessionModeState {
    return { currentModeId: this.live.mode.get() === 'plan' ? 'plan' : this.live.policy.mode, availableModes: MODES };
  }

  /** Switch the permission mode (and with it plan mode: one plan mode). */
  setMode(modeId: string): void {
    const mode = MODES.find((m) => m.id === modeId)?.id as PermissionMode | undefined;
    if (!mode) throw new TurnFailed(`unknown mode "${modeId}"; choose one of ${MODES.map((m) => m.id).join(', ')}`);
    this.live.mode.set(mode === 'plan' ? 'plan' : 'build');
    this.live.policy.mode = mode;
  }

  /** The commands an editor offers after `/`. */
  commands(): acp.AvailableCommand[] {
    const ctx = this.live.loadContext();
    return [
      { name: 'compact', description: 'Summarise the conversation now to free context', input: { hint: 'what the summary must keep' } },
      ...ctx.commands.map((c) => ({ name: c.name, description: c.description ?? 'custom command', input: { hint: 'arguments' } })),
      ...ctx.skills.map((s) => ({ name: s.name, description: s.description, input: { hint: 'arguments' } })),
    ];
  }

  /** A call's command runs in the editor's terminal `terminalId`: its card shows it. */
  terminalStarted(callId: string, terminalId: string): Promise<void> {
    this.terminals.set(callId, terminalId);
    return this.peer.update(toolCallTerminal(callId, terminalId));
  }

  /** A warning while a prompt runs: a thought line the user sees (between prompts: the log only). */
  async note(line: string): Promise<void> {
    if (this.turn) await this.peer.update(textChunk('agent_thought_chunk', `${line}\n`));
  }

  /**
   * Ask the client about a call the policy asks about (the Notification hooks run beside it, as in
   * the REPL). The question shows the call as it will run: the one the request names (the
   * registry puts it on every request).
   */
  async ask(request: PermissionRequest): Promise<SessionAnswer> {
    const { call } = request;
    this.live.notify(`Keen needs your permission to use ${request.tool}`, 'permission_prompt');
    const response = await this.peer.requestPermission({
      toolCall: permissionToolCall(call, `${request.tool}-permission`, request.summary, request.tool, this.cwd),
      options: OPTIONS,
    });
    if (response.outcome.outcome !== 'selected') return 'deny';
    const id = response.outcome.optionId;
    return id === 'once' || id === 'session' ? id : 'deny';
  }

  /** Run one prompt; resolves with its stop reason, rejects with TurnFailed for a failure. */
  async prompt(blocks: readonly acp.ContentBlock[]): Promise<acp.StopReason> {
    if (this.turn) throw new TurnFailed('a prompt is already running in this session');
    const { text, unsupported, images } = promptText(blocks, { takes: this.live.resolved.info.images === true, model: this.live.resolved.name });
    if (unsupported.length) throw new TurnFailed(`cannot send ${unsupported.join(', ')}`);
    const turn = new AbortController();
    this.turn = turn;
    try {
      const compact = /^\/compact(?:\s+([\s\S]*))?$/.exec(text.trim());
      const expanded = compact ? undefined : this.live.expandSlash(text);
      if (compact) await this.compactionStarted(true);
      const events = compact
        ? this.live.controller.compact(compact[1]?.trim() || undefined, turn.signal)
        : this.live.controller.chat(expanded && expanded.kind !== 'none' ? expanded.text : text, turn.signal, images);
      let stop: acp.StopReason = 'end_turn';
      for await (const ev of events) {
        if (ev.type === 'done') stop = STOP[ev.stopReason] ?? 'end_turn';
        else if (ev.type === 'error') {
          await this.flushText();
          const cancelled = ev.error.kind === 'cancelled' || turn.signal.aborted;
          if (compact) await this.compactionEnded(cancelled ? { cancelled } : { reason: ev.error.message.replace(/;\s*history unchanged$/, '') });
          if (cancelled) return 'cancelled';
          throw new TurnFailed(ev.error.message);
        } else if (ev.type === 'compaction_done') {
          await this.flushText();
          const note = this.live.controller.compactions.at(-1);
          await this.compactionEnded({ summary: ev.summary, tokensBefore: note?.tokensBefore ?? 0, tokensAfter: note?.tokensAfter ?? 0 });
        } else await this.forward(ev);
      }
      await this.flushText();
      return turn.signal.aborted ? 'cancelled' : stop;
    } finally {
      this.turn = undefined;
      this.summaryCard = false;
    }
  }

  cancel(): void {
    this.turn?.abort();
  }

  /** Streamed answer text: a message chunk, or during `/compact` a chunk of the compaction's summary. */
  private answerChunk(text: string): acp.SessionUpdate {
    if (!this.summaryCard) return textChunk('agent_message_chunk', text);
    return { sessionUpdate: 'compaction_summary_chunk', compactionId: `compaction-${this.compactions}`, content: { type: 'text', text } };
  }

  /** Send what the scrubbers held back (the text run ended). */
  private async flushText(keep?: 'answer' | 'thought'): Promise<void> {
    const answer = keep === 'answer' ? '' : this.answer.flush();
    if (answer) await this.peer.update(this.answerChunk(answer));
    const thought = keep === 'thought' ? '' : this.thought.flush();
    if (thought) await this.peer.update(textChunk('agent_thought_chunk', thought));
  }

  private async forward(ev: ControllerEvent): Promise<void> {
    await this.flushText(ev.type === 'text_delta' ? 'answer' : ev.type === 'reasoning_delta' ? 'thought' : undefined);
    switch (ev.type) {
      case 'text_delta': {
        const text = this.answer.push(ev.text);
        return text ? this.peer.update(this.answerChunk(text)) : undefined;
      }
      case 'reasoning_delta': {
        const text = this.thought.push(ev.text);
        return text ? this.peer.update(textChunk('agent_thought_chunk', text)) : undefined;
      }
      case 'tool_call_started':
        return this.peer.update(toolCallStarted(ev.call, this.cwd));
      case 'tool_call_input_changed':
        return this.peer.update(toolCallInputChanged(ev.call, this.cwd));
      case 'tool_call_finished':
        return this.peer.update(toolCallFinished(ev.call, ev.result, this.cwd, this.terminals.get(ev.call.id)));
      case 'retry_wait':
        return this.peer.update(textChunk('agent_thought_chunk', `${describeRetryWait(ev.wait)}\n`));
      case 'auto_compaction_started':
        return this.compactionStarted(false);
      case 'auto_compaction_applied':
        return this.compactionEnded(ev);
      case 'auto_compaction_cancelled':
        return this.compactionEnded({ cancelled: true });
      case 'auto_compaction_failed':
        return this.compactionEnded({ reason: ev.reason });
      default:
        return;
    }
  }

  /** A compaction starts (`manual`: `/compact`, whose summary streams; automatic ones' does not). */
  private compactionStarted(manual: boolean): Promise<void> {
    this.compactions++;
    this.summaryCard = manual && this.peer.compactionUpdates;
    return this.compaction('in_progress', 'Compacting the conversation to free context…');
  }

  /** How the compaction that started last ended: applied, cancelled, or failed for `reason`. */
  private compactionEnded(end: { summary: string; tokensBefore: number; tokensAfter: number } | { cancelled: true } | { reason: string }): Promise<void> {
    this.summaryCard = false;
    if ('summary' in end) return this.compaction('completed', `Context compacted: ~${end.tokensBefore} → ~${end.tokensAfter} tokens.`, end.summary);
    if ('cancelled' in end) return this.compaction('cancelled', 'Compaction cancelled; the conversation is unchanged.');
    return this.compaction('failed', `Compaction failed (${end.reason}); the conversation is unchanged.`);
  }

  private compaction(status: acp.CompactionStatus, line: string, summary?: string): Promise<void> {
    if (!this.peer.compactionUpdates) return this.peer.update(textChunk('agent_thought_chunk', `${line}\n`));
    const update: acp.SessionUpdate = { sessionUpdate: 'compaction_update', compactionId: `compaction-${this.compactions}`, status };
    if (summary) update.summary = [{ type: 'text', text: summary }];
    if (status === 'failed') update.error = line;
    return this.peer.update(update);
  }

  /**
   * The stored conversation as updates, for `session/load`: prompts, answers, tool cards (with
   * the files they touched and an edit's diff) and a marker where the context was compacted — a
   * completed `compaction_update` with its summary, or a thought line. A transcript read only in
   * part (SHOWN_BUDGET) starts with a thought line saying so.
   */
  async replay(): Promise<void> {
    if (!this.live.shown.complete) await this.peer.update(textChunk('agent_thought_chunk', `${EARLIER_NOT_SHOWN}\n`));
    // Turns a rewind took back are not shown, as the model no longer has them (the REPL's rule).
    const records = withoutRewound(this.live.shown.records.length ? this.live.shown.records : this.live.records);
    const bySeq = new Map(records.map((r) => [r.seq, r]));
    // A call and its result may be stored in separate records of one turn.
    const calls = new Map<string, ToolCall>();
    for (const r of records) {
      if (r.kind !== 'assistant_turn') continue;
      for (const m of r.messages) if (m.role === 'assistant') for (const p of partsOf(m)) if (p.type === 'tool_call') calls.set(p.id, { id: p.id, name: p.name, args: p.args });
    }
    for (const item of replayTranscript(records)) {
      const record = bySeq.get(item.seq);
      if (item.type === 'user') await this.peer.update(textChunk('user_message_chunk', item.text));
      else if (item.type === 'assistant') {
        for (const seg of item.segments)
          await this.peer.update(seg.type === 'text' ? textChunk('agent_message_chunk', seg.text) : storedToolCall(seg.tool, calls.get(seg.tool.id), this.cwd));
      } else if (item.type === 'compaction') {
        const head = record?.kind === 'compaction_applied' ? summaryHead(record.messages) : undefined;
        await this.storedCompaction(item.seq, item.mode === 'auto' ? 'Context compacted automatically.' : item.status || 'Context compacted.', head && summaryText(head));
      }
    }
  }

  /** A compaction of the stored conversation; its id is its record's, apart from live ones. */
  private storedCompaction(seq: number, line: string, summary: string | undefined): Promise<void> {
    if (!this.peer.compactionUpdates) return this.peer.update(textChunk('agent_thought_chunk', `${line}\n`));
    const update: acp.SessionUpdate = { sessionUpdate: 'compaction_update', compactionId: `stored-${seq}`, status: 'completed' };
    if (summary) update.summary = [{ type: 'text', text: summary }];
    return this.peer.update(update);
  }
}
