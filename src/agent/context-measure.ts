import type { Message, SystemMessage } from '../core/message.js';
import { ContextMeter } from '../tokens/token-estimator.js';
import { promptTokens, type Usage } from '../core/usage.js';
import type { AppState } from './app-state.js';

/**
 * The session's context size, measured the way the automatic-compaction trigger measures it: a
 * {@link ContextMeter} over system prompt + history + tools, corrected by the prompt size the
 * provider last reported (plus the local estimate of what was appended since). The REPL footer,
 * `/context` and `keen context` all read it, so none of them disagrees with when compaction fires.
 */
export class ContextMeasure {
  private meter = new ContextMeter();
  /** One stable object stands for the system prompt, so a report keeps matching the history. */
  private readonly system: SystemMessage = { role: 'system', content: '' };

  constructor(private readonly appState: AppState) {}

  private view(): Message[] {
    return [this.system, ...this.appState.messages];
  }

  /** A request of the running turn reported `usage`; it covered the history as it is now. */
  observe(usage: Usage): void {
    const view = this.view();
    this.meter.observe(promptTokens(usage), view.length, view);
  }

  /** The history was replaced (a compaction): forget the report. */
  reset(): void {
    this.meter.reset();
  }

  /** Input tokens of the request a turn would send now, and where the figure comes from. */
  measure(): { tokens: number; source: 'reported' | 'local'; systemPrompt: string } {
    const systemPrompt = this.appState.systemPrompt();
    this.system.content = systemPrompt;
    const tokens = this.meter.estimate(this.view(), this.appState.toolDefinitions);
    return { tokens, source: this.meter.lastSource, systemPrompt };
  }
}
