import type { RecordedRequest } from '../fakes/script.js';

/** The system prompt of a recorded Messages API request. */
export function systemText(req: RecordedRequest): string {
  const system = req.body?.system;
  if (typeof system === 'string') return system;
  return Array.isArray(system) ? system.map((b: { text?: string }) => b.text ?? '').join('\n') : '';
}

/** The names of the tools a recorded request offered, in order. */
export const toolNames = (req: RecordedRequest): string[] => (req.body?.tools ?? []).map((t: { name: string }) => t.name);
