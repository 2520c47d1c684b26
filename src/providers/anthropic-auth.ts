/**
 * The Anthropic credential: an API key (`x-api-key`: config `apiKeyEnv`, else ANTHROPIC_API_KEY),
 * else a bearer token (`Authorization: Bearer`: ANTHROPIC_AUTH_TOKEN, as gateways and Claude
 * Code's setups use). Undefined when neither is set.
 */
export type AnthropicCredential = { apiKey: string; authToken?: undefined } | { authToken: string; apiKey?: undefined };

export function anthropicCredential(settings: { apiKey?: string; env: NodeJS.ProcessEnv }): AnthropicCredential | undefined {
  const apiKey = settings.apiKey || settings.env.ANTHROPIC_API_KEY;
  if (apiKey) return { apiKey };
  const authToken = settings.env.ANTHROPIC_AUTH_TOKEN;
  return authToken ? { authToken } : undefined;
}
