/**
 * Input schemas as MCP servers send them, made acceptable to every provider: the top level must be
 * `{"type": "object"}` without `oneOf`/`anyOf`/`allOf` (Anthropic and OpenAI refuse those), and
 * without `$schema`. Pure. What was changed is returned, so the tool's description can say so
 * instead of the change going unnoticed.
 */
export interface AdaptedSchema {
  schema: Record<string, unknown>;
  /** Human-readable notes on what was changed; empty when the schema was taken as is. */
  changes: string[];
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The longest input schema (as JSON) offered: a definition goes with every request once the tool
 * is offered, so one server's schema must not fill the window. A longer one becomes an open object.
 */
const MAX_SCHEMA_CHARS = 40_000;

export function adaptInputSchema(input: unknown): AdaptedSchema {
  const changes: string[] = [];
  if (!isObject(input)) return { schema: { type: 'object', properties: {} }, changes: ['the server sent no input schema'] };
  const chars = JSON.stringify(input).length;
  if (chars > MAX_SCHEMA_CHARS) {
    changes.push(
      `the server's input schema has ${chars.toLocaleString('en-US')} characters, over the ${MAX_SCHEMA_CHARS.toLocaleString('en-US')} Keen offers; its arguments are not described`,
    );
    return { schema: { type: 'object', properties: {}, additionalProperties: true }, changes };
  }
  const schema: Json = structuredClone(input);
  delete schema.$schema;
  if (schema.type === undefined) schema.type = 'object';
  if (schema.type !== 'object') {
    changes.push(`the server's schema has type ${JSON.stringify(schema.type)}; arguments are passed as an object`);
    return { schema: { type: 'object', properties: {}, additionalProperties: true }, changes };
  }
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    delete schema[key];
    mergeBranches(schema, branches.filter(isObject), key === 'allOf');
    changes.push(`top-level ${key} flattened: check which fields belong together in the description`);
  }
  if (!isObject(schema.properties)) schema.properties = {};
  return { schema, changes };
}

/** Fold the branches' properties into the top level; `required` keeps what every branch needs. */
function mergeBranches(target: Json, branches: Json[], all: boolean): void {
  const properties: Json = isObject(target.properties) ? { ...target.properties } : {};
  const required = new Set<string>(Array.isArray(target.required) ? (target.required as string[]) : []);
  let common: Set<string> | undefined;
  for (const branch of branches) {
    if (isObject(branch.properties)) for (const [k, v] of Object.entries(branch.properties)) properties[k] ??= v;
    const req = new Set(Array.isArray(branch.required) ? (branch.required as string[]) : []);
    if (all) for (const r of req) required.add(r);
    else common = common ? new Set([...common].filter((r) => req.has(r))) : req;
  }
  for (const r of common ?? []) required.add(r);
  target.properties = properties;
  if (required.size) target.required = [...required];
  else delete target.required;
}
