import type { StreamEvent } from '../core/events.js';
import type { Message } from '../core/message.js';
import { addUsage, emptyUsage, type Usage } from '../core/usage.js';
import type { AssistantTurnRecord, ToolActivity } from '../transcript/records.js';
import { INPUT_CHANGED_MARK, toolSummary } from '../tools/summary.js';

/** The payload of an `assistant_turn` record (the record type lives with the store). */
export type AssistantTurnPayload = Omit<AssistantTurnRecord, 'seq' | 'ts' | 'batch' | 'kind'>;

/**
 * Accumulates what one assistant turn produced since the turn started or since the last
 * checkpoint: visible text, tool activity with text offsets, generic messages and usage.
 */
export class TurnMemory {
  private text = '';
  private tools: ToolActivity[] = [];
  private messages: Message[] = [];
  private usage: Usage = emptyUsage();

  /** Feed every event of the parent stream. Control events and reasoning are ignored. */
  observe(ev: StreamEvent): void {
    switch (ev.type) {
      case 'text_delta':
        this.text += ev.text;
        break;
      case 'tool_call_started':
        this.tools.push({ id: ev.call.id, name: ev.call.name, summary: toolSummary(ev.call), is_error: false, offset: this.text.length });
        break;
      case 'tool_call_input_changed': {
        const activity = this.tools.find((t) => t.id === ev.call.id);
        if (activity) Object.assign(activity, { summary: `${toolSummary(ev.call)} ${INPUT_CHANGED_MARK}`, input: ev.call.args });
        break;
      }
      case 'tool_call_finished': {
        const activity = this.tools.find((t) => t.id === ev.call.id);
        if (activity) activity.is_error = !!ev.result.is_error;
        break;
      }
      case 'message':
        this.messages.push(ev.message);
        break;
      case 'usage':
        this.usage = addUsage(this.usage, ev.usage);
        break;
      default:
        break;
    }
  }

  get visibleText(): string {
    return this.text;
  }

  isEmpty(): boolean {
    return !this.text && this.tools.length === 0 && this.messages.length === 0;
  }

  snapshot(checkpoint = false): AssistantTurnPayload {
    const payload: AssistantTurnPayload = {
      text: this.text,
      tools: this.tools.map((t) => ({ ...t })),
      usage: { ...this.usage },
      messages: structuredClone(this.messages),
    };
    if (checkpoint) payload.checkpoint = true;
    return payload;
  }

  /** Start fresh accumulation (after a checkpoint). */
  reset(): void {
    this.text = '';
    this.tools = [];
    this.messages = [];
    this.usage = emptyUsage();
  }
}
