import * as z from 'zod';
import { once } from '../core/lazy.js';
import { PROVIDER_IDS } from './provider-settings.js';
import { hooksSchema } from './hooks-schema.js';
import { mcpServersSchema, mcpSettingsSchema } from './mcp-schema.js';

/**
 * `config.json`: built at its first use, not when the config module loads — a run without a
 * config file (and no KEEN_* override) never validates one, so building it is off the launch path.
 */
export const configSchema = once(() => {
  const providerId = z.enum(PROVIDER_IDS);

  /** `models.<name>`: adds a model or overrides the catalog's facts about one. */
  const modelEntrySchema = z.strictObject({
    provider: providerId.optional(),
    /** The model id sent on the wire, when the config name is an alias. */
    id: z.string().min(1).optional(),
    contextWindow: z.number().int().positive().optional(),
    maxOutputTokens: z.number().int().positive().optional(),
    /** The model takes images in user messages (`@shot.png`, `--image`); the catalog says for its models. */
    images: z.boolean().optional(),
    baseURL: z.url().optional(),
    /** Name of the environment variable holding this model's API key. */
    apiKeyEnv: z.string().min(1).optional(),
    /** Chat Completions: the field carrying the output limit (default: see docs/providers.md). */
    maxTokensField: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
  });

  const compactionSchema = z.strictObject({
    auto: z.boolean().optional(),
    /** Fraction of the input budget at which automatic compaction runs (default 0.9). */
    threshold: z.number().gt(0).lte(1).optional(),
    /** A smaller window to work in than the model's capacity (policy, not fact). */
    workingWindow: z.number().int().positive().optional(),
    /** Newest messages kept verbatim after a summary, in estimated tokens (0: none). */
    keepRecentTokens: z.number().int().nonnegative().optional(),
    /** Replace old tool outputs by recallable artifact handles at compaction time. */
    prune: z.boolean().optional(),
    /** The model that writes summaries (a name from `models` or the catalog); its window is what must fit. */
    model: z.string().min(1).optional(),
    /** Text added to every automatic and manual compaction prompt. */
    instructions: z.string().min(1).optional(),
  });

  const providerEntrySchema = z.strictObject({
    baseURL: z.url().optional(),
    apiKeyEnv: z.string().min(1).optional(),
    /** Chat Completions: the field carrying the output limit, for this provider's base URL. */
    maxTokensField: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
  });

  return z.strictObject({
    /** The JSON Schema an editor checks the file against (config.schema.json); ignored by Keen. */
    $schema: z.string().optional(),
    provider: providerId.optional(),
    model: z.string().min(1).optional(),
    models: z.record(z.string(), modelEntrySchema).optional(),
    providers: z.partialRecord(providerId, providerEntrySchema).optional(),
    compaction: compactionSchema.optional(),
    permissions: z
      .strictObject({
        allow: z.array(z.string()).optional(),
        ask: z.array(z.string()).optional(),
        deny: z.array(z.string()).optional(),
        additionalDirectories: z.array(z.string().min(1)).optional(),
        defaultMode: z.enum(['default', 'acceptEdits', 'plan', 'bypassPermissions']).optional(),
      })
      .optional(),
    /** The bash sandbox (docs/permissions.md). */
    sandbox: z
      .strictObject({
        mode: z.enum(['workspace-write', 'read-only', 'off']).optional(),
        network: z.boolean().optional(),
        /** Host socket kinds let into the sandbox; honoured from the user's own config only. */
        hostSockets: z.array(z.enum(['ssh-agent', 'x11', 'wayland', 'dbus', 'docker', 'runtime-dir'])).optional(),
      })
      .optional(),
    bash: z.strictObject({ envPassthrough: z.array(z.string().min(1)).optional() }).optional(),
    awsProfile: z.string().min(1).optional(),
    region: z.string().min(1).optional(),
    maxTurns: z.number().int().positive().optional(),
    thinkingBudget: z.number().int().nonnegative().optional(),
    maxRetries: z.number().int().nonnegative().optional(),
    /** MCP servers by name (see docs/mcp.md). */
    mcpServers: mcpServersSchema.optional(),
    /** MCP limits: startupTimeoutMs, toolTimeoutMs, deferToolsShare. */
    mcp: mcpSettingsSchema().optional(),
    /** Commands run around each step (docs/hooks.md); a project's count only in a trusted folder. */
    hooks: hooksSchema().optional(),
    /** `keen acp` (docs/acp.md): `clientTerminal` runs bash in the editor's terminal under a sandbox mode too; read from the user's own config only. */
    acp: z.strictObject({ clientTerminal: z.boolean().optional() }).optional(),
    /** Longest wait (seconds) before a retry; a server asking for more makes Keen give up (default 60). */
    maxRetryWait: z.number().nonnegative().optional(),
  });
});

export type KeenConfig = z.infer<ReturnType<typeof configSchema>>;
export type ModelEntry = NonNullable<KeenConfig['models']>[string];
