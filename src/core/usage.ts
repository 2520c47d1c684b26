/** Token usage of one model request, as reported by the provider. */
export interface Usage {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
}

export function emptyUsage(): Usage {
  return { input: 0, output: 0, cache_read: 0, cache_write: 0 };
}

export function addUsage(a: Usage, b: Partial<Usage> | undefined): Usage {
  if (!b) return { ...a };
  return {
    input: a.input + (b.input ?? 0),
    output: a.output + (b.output ?? 0),
    cache_read: a.cache_read + (b.cache_read ?? 0),
    cache_write: a.cache_write + (b.cache_write ?? 0),
  };
}

/**
 * Total prompt size of a request: providers differ on whether cached tokens are part of `input`.
 * Adapters normalise so that `input` EXCLUDES cache reads/writes (Anthropic's convention); the
 * full prompt is the sum.
 */
export function promptTokens(u: Usage): number {
  return u.input + u.cache_read + u.cache_write;
}
