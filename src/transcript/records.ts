import * as z from 'zod';
import { once } from '../core/lazy.js';
import type { Message, UserMessage } from '../core/message.js';
import type { Usage } from '../core/usage.js';

/**
 * The records of a session transcript (`transcript_events.jsonl`), one JSON object per line.
 *
 * Every record is flat: the envelope (`seq`, `kind`, `ts`, optional `batch`) followed by the
 * payload of its kind. Keys are snake_case and never renamed: old transcripts must keep loading.
 * Records are validated with zod when read (files are an edge) and trusted inside Keen.
 */

/** The transcript format written by this version of Keen (the `format` of `session_started`). */
export const TRANSCRIPT_FORMAT = 2;

/**
 * Format history. 1: assistant messages hold `content`, `tool_calls` and `reasoning` only.
 * 2: assistant messages also hold ordered `parts` with per-part provider metadata and the
 * producing wire API in `provider`, so a resumed request is the live request. Format-1 records
 * are upgraded when read (src/transcript/upgrade.ts); Keen writes format 2.
 */

/**
 * Marks the records written by one `appendBatch` of two or more records. `first_seq` is the seq of
 * the batch's first record (it doubles as the batch id) and `count` the number of records. A batch
 * is accepted only when all of `first_seq … first_seq + count - 1` are present with this marker.
 */
export interface BatchMarker {
  first_seq: number;
  count: number;
}

interface Envelope<K extends string> {
  /** 1, 2, 3 … in file order, one per record. */
  seq: number;
  kind: K;
  /** ISO 8601 time the record was written. */
  ts: string;
  batch?: BatchMarker;
}

export interface SessionStartedRecord extends Envelope<'session_started'> {
  format: number;
  session_id: string;
  cwd: string;
  provider: string;
  model: string;
  keen_version: string;
}

/**
 * One section of the system prompt (`key` names it: `git`, `mode`, `memory:<path>` …). `line`:
 * joined to the previous section by one newline instead of a blank line.
 */
export interface PromptSection {
  key: string;
  text: string;
  line?: boolean;
}

/**
 * What reached the model ahead of the user's text because the prompt's context changed since the
 * system prompt was written: `text` is prepended to the message as sent, `sections` are the new
 * versions (an empty `text`: the section is gone).
 */
export interface PromptReminder {
  text: string;
  sections: PromptSection[];
}

export interface UserMessageRecord extends Envelope<'user_message'> {
  /** What the user sent (without the reminder). */
  message: UserMessage;
  /** The system prompt this turn started using, when it differs from the one before (absent in older transcripts). */
  system?: PromptSection[];
  /** Sent ahead of `message.content` in the same user message. */
  reminder?: PromptReminder;
}

/** One tool call as the UI shows it: a card inserted at `offset` in the turn's visible text. */
export interface ToolActivity {
  id: string;
  name: string;
  /** One line shown on the card, e.g. `read src/a.ts` or `exit 1`. */
  summary: string;
  is_error: boolean;
  /** Index into the turn's `text` where the call happened. */
  offset: number;
  /**
   * The arguments the call ran with, when a PreToolUse hook changed them (the summary then
   * describes them and ends with INPUT_CHANGED_MARK); the messages keep the model's call.
   */
  input?: string;
}

export interface AssistantTurnRecord extends Envelope<'assistant_turn'> {
  /** The assistant's visible text for the whole turn (all model requests of the tool loop). */
  text: string;
  tools: ToolActivity[];
  usage: Usage;
  /** The generic assistant and tool messages of this turn, in order. */
  messages: Message[];
  /** True when written just before an automatic compaction, in the same batch as it. */
  checkpoint?: boolean;
}

export interface CompactionAppliedRecord extends Envelope<'compaction_applied'> {
  mode: 'manual' | 'auto';
  /** `Context compacted.` for a manual compaction, '' for an automatic one. */
  status: string;
  /** The system-free history that replaces everything before this record. */
  messages: Message[];
  /**
   * The session's system prompt when it was written (absent in older transcripts): an open that
   * starts at this record goes on with that prompt instead of writing a new one.
   */
  system?: PromptSection[];
  /**
   * The provider and model in effect when it was written (stamped by the store; absent in
   * transcripts written before it did). Lets an open start at the last compaction without reading
   * what is before it for a `model_changed`.
   */
  provider?: string;
  model?: string;
}

export interface ModelChangedRecord extends Envelope<'model_changed'> {
  provider: string;
  model: string;
}

/**
 * File changes of earlier turns were undone (`/undo`, `/rewind`, `keen undo`): `turn_seqs` are the
 * seqs of those turns' user messages, `files` the paths restored. With `conversation_to_seq` the
 * conversation was rewound too: the history drops everything from that user message on.
 */
export interface UndoRecord extends Envelope<'undo'> {
  turn_seqs: number[];
  files: string[];
  conversation_to_seq?: number;
}

/** One tool output replaced by its artifact handle. */
export interface PrunedOutput {
  /** Index of the tool message in the system-free history rebuilt from the records before this one. */
  index: number;
  /** Must match the tool message at `index`, else the entry is skipped on replay. */
  tool_call_id: string;
  /** The artifact (`artifact#N`) that holds the full output. */
  artifact: number;
  /** The handle text that replaces the output. */
  content: string;
}

/**
 * Old tool outputs replaced by artifact handles at compaction time. Replayed in file order with
 * the other records, so a resumed history holds the same handles the live one did.
 */
export interface PruneAppliedRecord extends Envelope<'prune_applied'> {
  pruned: PrunedOutput[];
}

export type SessionRecord = SessionStartedRecord | UserMessageRecord | AssistantTurnRecord | CompactionAppliedRecord | ModelChangedRecord | UndoRecord | PruneAppliedRecord;

export type RecordKind = SessionRecord['kind'];

type WithoutEnvelope<R> = R extends SessionRecord ? Omit<R, 'seq' | 'ts' | 'batch'> : never;

/** A record as callers hand it to the store: the store assigns `seq`, `ts` and `batch`. */
export type NewRecord = WithoutEnvelope<SessionRecord>;

// ---- zod schemas (the edge) -------------------------------------------------------------------

/**
 * The schemas are built on first use, one record kind at a time, not when the module loads:
 * building all of them delayed a new session's first request, and its first writes
 * (`session_started`, `user_message`, after the model has answered) need only their own two.
 * A value whose kind is known is checked by that kind's schema — exactly what the discriminated
 * union does with it; anything else goes to the union (built then) for its own message.
 */
const userMessageSchema = once(() =>
  z.object({
    role: z.literal('user'),
    content: z.string(),
    summary_level: z.union([z.literal(1), z.literal(2)]).optional(),
    images: z.array(z.object({ media_type: z.string(), data: z.string() })).optional(),
  }),
);

const messageSchema = once(() => {
  const toolCallSchema = z.object({ id: z.string(), name: z.string(), args: z.string() });
  const reasoningSchema = z.object({
    provider: z.string(),
    text: z.string(),
    signature: z.string().optional(),
    encrypted_content: z.string().optional(),
    id: z.string().optional(),
    redacted: z.boolean().optional(),
  });
  const metaSchema = z.record(z.string(), z.unknown());
  const partSchema = z.discriminatedUnion('type', [
    z.object({ type: z.literal('text'), text: z.string(), meta: metaSchema.optional() }),
    z.object({
      type: z.literal('reasoning'),
      text: z.string(),
      signature: z.string().optional(),
      encrypted_content: z.string().optional(),
      redacted: z.boolean().optional(),
      meta: metaSchema.optional(),
    }),
    z.object({ type: z.literal('tool_call'), id: z.string(), name: z.string(), args: z.string(), meta: metaSchema.optional() }),
  ]);
  return z.discriminatedUnion('role', [
    z.object({ role: z.literal('system'), content: z.string() }),
    userMessageSchema(),
    z.object({
      role: z.literal('assistant'),
      content: z.string(),
      tool_calls: z.array(toolCallSchema).optional(),
      reasoning: z.array(reasoningSchema).optional(),
      parts: z.array(partSchema).optional(),
      provider: z.string().optional(),
    }),
    z.object({
      role: z.literal('tool'),
      tool_call_id: z.string(),
      name: z.string(),
      content: z.string(),
      is_error: z.boolean().optional(),
      artifact_ref: z.number().int().positive().optional(),
      images: z.array(z.object({ media_type: z.string(), data: z.string() })).optional(),
    }),
  ]);
});

const count = () => z.number().int().nonnegative();

const envelope = once(() => ({
  seq: z.number().int().positive(),
  ts: z.iso.datetime({ offset: true }),
  batch: z.object({ first_seq: z.number().int().positive(), count: z.number().int().min(2) }).optional(),
}));

const sessionStartedSchema = once(() =>
  z.object({
    ...envelope(),
    kind: z.literal('session_started'),
    format: z.number().int().positive(),
    session_id: z.string(),
    cwd: z.string(),
    provider: z.string(),
    model: z.string(),
    keen_version: z.string(),
  }),
);

const promptSectionSchema = once(() => z.object({ key: z.string(), text: z.string(), line: z.boolean().optional() }));

const userMessageRecordSchema = once(() =>
  z.object({
    ...envelope(),
    kind: z.literal('user_message'),
    message: userMessageSchema(),
    system: z.array(promptSectionSchema()).optional(),
    reminder: z.object({ text: z.string(), sections: z.array(promptSectionSchema()) }).optional(),
  }),
);

const assistantTurnSchema = once(() =>
  z.object({
    ...envelope(),
    kind: z.literal('assistant_turn'),
    text: z.string(),
    tools: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        summary: z.string(),
        is_error: z.boolean(),
        offset: count(),
        input: z.string().optional(),
      }),
    ),
    usage: z.object({ input: count(), output: count(), cache_read: count(), cache_write: count() }),
    messages: z.array(messageSchema()),
    checkpoint: z.boolean().optional(),
  }),
);

const compactionAppliedSchema = once(() =>
  z.object({
    ...envelope(),
    kind: z.literal('compaction_applied'),
    mode: z.enum(['manual', 'auto']),
    status: z.string(),
    messages: z.array(messageSchema()),
    system: z.array(promptSectionSchema()).optional(),
    provider: z.string().optional(),
    model: z.string().optional(),
  }),
);

const modelChangedSchema = once(() => z.object({ ...envelope(), kind: z.literal('model_changed'), provider: z.string(), model: z.string() }));

const undoSchema = once(() =>
  z.object({
    ...envelope(),
    kind: z.literal('undo'),
    turn_seqs: z.array(z.number().int().positive()),
    files: z.array(z.string()),
    conversation_to_seq: z.number().int().positive().optional(),
  }),
);

const pruneAppliedSchema = once(() =>
  z.object({
    ...envelope(),
    kind: z.literal('prune_applied'),
    pruned: z.array(z.object({ index: count(), tool_call_id: z.string(), artifact: z.number().int().positive(), content: z.string() })),
  }),
);

const recordSchema = once(() =>
  z.discriminatedUnion('kind', [
    sessionStartedSchema(),
    userMessageRecordSchema(),
    assistantTurnSchema(),
    compactionAppliedSchema(),
    modelChangedSchema(),
    undoSchema(),
    pruneAppliedSchema(),
  ]),
);

const SCHEMA_OF_KIND: Record<RecordKind, () => z.ZodType> = {
  session_started: sessionStartedSchema,
  user_message: userMessageRecordSchema,
  assistant_turn: assistantTurnSchema,
  compaction_applied: compactionAppliedSchema,
  model_changed: modelChangedSchema,
  undo: undoSchema,
  prune_applied: pruneAppliedSchema,
};

type RecordParse = ReturnType<ReturnType<typeof recordSchema>['safeParse']>;

/**
 * zod's verdict on one value as a record (the readers' and the store's check). `once`: a check of
 * a few records (the store's, before a write) skips zod's compiled fast path, whose compilation
 * costs more than it saves on a handful of values; readers of whole transcripts keep it.
 */
export function parseRecord(value: unknown, once = false): RecordParse {
  const ctx = once ? { jitless: true } : undefined;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const kind = (value as { kind?: unknown }).kind;
    if (typeof kind === 'string' && Object.hasOwn(SCHEMA_OF_KIND, kind)) return SCHEMA_OF_KIND[kind as RecordKind]().safeParse(value, ctx) as RecordParse;
  }
  return recordSchema().safeParse(value, ctx);
}

// Compile-time proof that the schema and the hand-written types agree in both directions.
type Parsed = z.infer<ReturnType<typeof recordSchema>>;
const parsedIsRecord = (r: Parsed): SessionRecord => r;
const recordIsParsed = (r: SessionRecord): Parsed => r;
void parsedIsRecord;
void recordIsParsed;

const KINDS = new Set<string>(['session_started', 'user_message', 'assistant_turn', 'compaction_applied', 'model_changed', 'undo', 'prune_applied'] satisfies RecordKind[]);

/**
 * Validate one parsed JSON value as a record. Returns the record (a fresh object without unknown
 * keys) or a short reason naming the first offending field. Never throws.
 */
export function validateRecord(value: unknown): { ok: true; record: SessionRecord } | { ok: false; reason: string } {
  const result = parseRecord(value);
  if (result.success) return { ok: true, record: result.data };
  const kind = (value as { kind?: unknown } | null)?.kind;
  if (typeof kind === 'string' && !KINDS.has(kind)) return { ok: false, reason: `unknown kind ${JSON.stringify(kind)}` };
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'record';
  return { ok: false, reason: `${where}: ${issue?.message ?? 'invalid'}` };
}
