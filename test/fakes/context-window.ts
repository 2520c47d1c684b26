/**
 * The over-window option every provider fake has: refuse, as the service does, each request whose
 * input exceeds a context window. The fakes count input the same way — a quarter of the
 * characters of what the request sends as the conversation (system prompt, messages, tools) — so
 * a test can tell from the recorded requests which ones a fake refused.
 */
import type { RecordedRequest } from './script.js';

/** What a fake with the over-window option adds to its server. */
export interface ContextWindowed {
  /** Refuse every request whose input exceeds `tokens` (see {@link ContextWindowed.inputTokens}); undefined: no limit. */
  setContextWindow(tokens: number | undefined): void;
  /** The fake's count of a request's input tokens. */
  inputTokens(req: RecordedRequest): number;
}

export interface ContextWindowOptions {
  /** See {@link ContextWindowed.setContextWindow}. */
  contextWindow?: number;
}

/** A window check over the fields of a request body that hold the conversation. */
export class ContextWindow implements ContextWindowed {
  private window: number | undefined;

  constructor(
    private readonly fields: (body: any) => unknown[],
    opts: ContextWindowOptions = {},
  ) {
    this.window = opts.contextWindow;
  }

  setContextWindow = (tokens: number | undefined): void => {
    this.window = tokens;
  };

  inputTokens = (req: RecordedRequest): number => Math.ceil(JSON.stringify(this.fields(req.body ?? {})).length / 4);

  /** The request's input and the window when the input does not fit, else undefined. */
  over(req: RecordedRequest): { tokens: number; window: number } | undefined {
    if (this.window === undefined) return undefined;
    const tokens = this.inputTokens(req);
    return tokens > this.window ? { tokens, window: this.window } : undefined;
  }
}
