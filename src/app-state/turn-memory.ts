import type { StreamEvent } from '../llm/core/events.js';
import type { Message } from '../llm/core/message.js';
import { addUsage, emptyUsage, type Usage } from '../llm/core/usage.js';
import { toolSummary } from '../tools/summary.js';

/** A tool call as shown and persisted: where in the text it happened and how it ended. */
export interface ToolActivity {
  id: string;
  name: string;
  summary: string;
  is_error: boolean;
  /** Index into the turn's visible text at which the call started. */
  offset: number;
}

/** The payload of an `assistant_turn` record. */
export interface AssistantTurnPayload {
  text: string;
  tools: ToolActivity[];
  usage: Usage;
  messages: Message[];
  checkpoint?: boolean;
}

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
