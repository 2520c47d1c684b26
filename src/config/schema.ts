import { z } from 'zod';
import { PROVIDER_IDS } from '../llm/providers/types.js';

const providerId = z.enum(PROVIDER_IDS);

/** `models.<name>`: adds a model or overrides the catalog's facts about one. */
export const modelEntrySchema = z.strictObject({
  provider: providerId.optional(),
  /** The model id sent on the wire, when the config name is an alias. */
  id: z.string().min(1).optional(),
  contextWindow: z.number().int().positive().optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  baseURL: z.url().optional(),
  /** Name of the environment variable holding this model's API key. */
  apiKeyEnv: z.string().min(1).optional(),
});

export const compactionSchema = z.strictObject({
  auto: z.boolean().optional(),
  /** Fraction of the input budget at which automatic compaction runs (default 0.9). */
  threshold: z.number().gt(0).lte(1).optional(),
  /** A smaller window to work in than the model's capacity (policy, not fact). */
  workingWindow: z.number().int().positive().optional(),
});

export const providerEntrySchema = z.strictObject({
  baseURL: z.url().optional(),
  apiKeyEnv: z.string().min(1).optional(),
});

export const configSchema = z.strictObject({
  /** The JSON Schema an editor checks the file against (config.schema.json); ignored by Keen. */
  $schema: z.string().optional(),
  provider: providerId.optional(),
  model: z.string().min(1).optional(),
  models: z.record(z.string(), modelEntrySchema).optional(),
  providers: z.partialRecord(providerId, providerEntrySchema).optional(),
  compaction: compactionSchema.optional(),
  permissions: z.strictObject({ allow: z.array(z.string()).optional() }).optional(),
  awsProfile: z.string().min(1).optional(),
  region: z.string().min(1).optional(),
  maxTurns: z.number().int().positive().optional(),
  thinkingBudget: z.number().int().nonnegative().optional(),
  maxRetries: z.number().int().nonnegative().optional(),
});

export type KeenConfig = z.infer<typeof configSchema>;
export type ModelEntry = z.infer<typeof modelEntrySchema>;
