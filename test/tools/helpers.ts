import type { ToolMessage } from '../../src/core/message.js';
import { createDefaultRegistry } from '../../src/tools/index.js';
import { createHeadlessGate } from '../../src/tools/permissions/index.js';
import type { PermissionGate, ToolRegistry } from '../../src/tools/types.js';

export const yolo: PermissionGate = createHeadlessGate({ yolo: true, allow: [] });

let nextId = 0;

/** Execute one call through the default registry, as the loop would. */
export function call(
  cwd: string,
  name: string,
  args: unknown,
  options: { signal?: AbortSignal; permissions?: PermissionGate; registry?: ToolRegistry } = {},
): Promise<ToolMessage> {
  const registry = options.registry ?? createDefaultRegistry();
  return registry.execute(
    { id: `call_${++nextId}`, name, args: typeof args === 'string' ? args : JSON.stringify(args) },
    { cwd, signal: options.signal ?? new AbortController().signal, permissions: options.permissions ?? yolo },
  );
}
