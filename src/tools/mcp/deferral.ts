/**
 * Whether a session's MCP tools are offered one by one or deferred behind `mcp_tool_search`.
 * Pure: the registry (./registry.ts) measures, this decides.
 */

/** Tools a provider accepts in one request, where it caps them (the service refuses more). */
const PROVIDER_TOOL_CAPS: Readonly<Record<string, number>> = {
  openai: 128,
  'openai-responses': 128,
  codex: 128,
  // Gemini: at most 512 function declarations.
  genkit: 512,
};

/** The provider's cap on tools per request, if it has one. */
export function providerToolCap(provider: string): number | undefined {
  return PROVIDER_TOOL_CAPS[provider];
}

export interface DeferralInput {
  /** Built-in tools offered (never deferred). */
  builtins: number;
  /** MCP tools the servers offer now. */
  mcpTools: number;
  /** Their definitions' estimated tokens. */
  mcpTokens: number;
  /** The session's context window, in tokens. */
  window: number;
  /** `mcp.deferToolsShare`: the share of the window the MCP definitions may take. */
  share: number;
  /** The provider's tool cap, if any. */
  cap?: number;
}

export type Deferral = { defer: false } | { defer: true; reason: string };

/**
 * Defer when the MCP definitions take more than `share` of the window, or when offering all of
 * them would pass the provider's tool cap. No MCP tool, nothing to defer.
 */
export function decideDeferral(input: DeferralInput): Deferral {
  if (input.mcpTools === 0) return { defer: false };
  if (input.cap !== undefined && input.builtins + input.mcpTools > input.cap) {
    return { defer: true, reason: `${input.builtins + input.mcpTools} tools pass the provider's cap of ${input.cap}` };
  }
  const limit = Math.floor(input.share * input.window);
  if (input.mcpTokens > limit) {
    const percent = Math.round((input.mcpTokens / Math.max(1, input.window)) * 100);
    return { defer: true, reason: `their definitions (~${input.mcpTokens} tokens, ${percent}% of the window) pass mcp.deferToolsShare ${input.share}` };
  }
  return { defer: false };
}

/** The one line that says so. */
export function deferralNotice(count: number, reason: string): string {
  return `${count} MCP tools deferred behind mcp_tool_search: ${reason}; the model loads the ones it needs`;
}
