/**
 * The built-in tools' definitions as sent, computed when the bundle is built (scripts/build.mjs
 * runs tool-table-build.ts and defines `KEEN_TOOL_TABLE`): on the way to the first request, turning
 * each tool's zod schema into JSON Schema and counting its tokens cold is the slow part. The sources run
 * in tests without it and compute both.
 *
 * Invariant the table relies on: a built-in tool's schema is a module constant, the same for every
 * instance of that tool name (a factory may vary the description, never the schema); the entry's
 * token count is used only when the description is the one it was counted with.
 * `test/e2e/launch-path.test.ts` checks the bundle's request against the sources' definitions.
 */
export interface ToolTableEntry {
  readonly description: string;
  readonly input_schema: Record<string, unknown>;
  /** The token estimator's count of the whole definition (name, description, schema). */
  readonly tokens: number;
}

export type ToolTable = Readonly<Record<string, ToolTableEntry>>;

declare const KEEN_TOOL_TABLE: ToolTable | undefined;

const TABLE: ToolTable | undefined = typeof KEEN_TOOL_TABLE === 'object' ? KEEN_TOOL_TABLE : undefined;

/** The build-time entry of built-in tool `name`, or undefined (running from sources, or not built in). */
export function builtInDefinition(name: string): ToolTableEntry | undefined {
  return TABLE && Object.hasOwn(TABLE, name) ? TABLE[name] : undefined;
}
