import type { KeenConfig } from '../config/schema.js';
import { applyEnvOverrides } from '../config/env-overrides.js';
import { loadConfig } from '../config/load.js';
import { DEFAULT_MODEL, FALLBACK_CAPACITY, MODEL_CATALOG, MODEL_SHORT_NAMES } from '../config/models.js';
import { keenHome } from '../config/paths.js';
import { priceOf } from '../config/prices.js';
import { forStream } from '../security/terminal-text.js';
import { enterDirectory } from './prompt-input.js';

export interface ModelRow {
  name: string;
  provider: string;
  context_window: number;
  max_output_tokens: number;
  /** `catalog`, `config` (added), or `catalog+config` (catalog entry overridden). */
  source: 'catalog' | 'config' | 'catalog+config';
  /** USD per million input/output tokens at list price, when known. */
  price: { input: number; output: number } | null;
  default_for: string[];
  /** Short names that stand for this model (`opus`), unless the config defines that name. */
  short_names: string[];
}

/** The catalog and the configured models, configured entries applied over the catalog. */
export function modelRows(config: KeenConfig): ModelRow[] {
  const configured = config.models ?? {};
  const names = [...new Set([...Object.keys(MODEL_CATALOG), ...Object.keys(configured)])];
  return names.map((name) => {
    const cat = MODEL_CATALOG[name];
    const entry = configured[name];
    const price = priceOf(entry?.id ?? name);
    return {
      name,
      provider: entry?.provider ?? cat?.provider ?? config.provider ?? 'anthropic',
      context_window: entry?.contextWindow ?? cat?.contextWindow ?? FALLBACK_CAPACITY.contextWindow,
      max_output_tokens: entry?.maxOutputTokens ?? cat?.maxOutputTokens ?? FALLBACK_CAPACITY.maxOutputTokens,
      source: cat && entry ? 'catalog+config' : cat ? 'catalog' : 'config',
      price: price ? { input: price.input, output: price.output } : null,
      default_for: Object.entries(DEFAULT_MODEL)
        .filter(([, m]) => m === name)
        .map(([p]) => p),
      short_names: Object.entries(MODEL_SHORT_NAMES)
        .filter(([short, full]) => full === name && !(short in configured))
        .map(([short]) => short),
    };
  });
}

const n = (v: number) => v.toLocaleString('en-US');

/** `keen models [--output-format json]`. */
export async function runModelsCommand(opts: { outputFormat?: string; cwd?: string }): Promise<number> {
  if (opts.cwd) enterDirectory(opts.cwd);
  const config = applyEnvOverrides(loadConfig(keenHome(process.env), process.cwd()).config, process.env);
  const rows = modelRows(config);
  if (opts.outputFormat === 'json') {
    process.stdout.write(forStream(process.stdout, `${JSON.stringify(rows, null, 2)}\n`));
    return 0;
  }
  // Names come from config files (a project's too): sanitised before they are measured and printed.
  const table = [
    ['MODEL', 'PROVIDER', 'WINDOW', 'OUTPUT', 'PRICE $/M in/out', 'NOTE'],
    ...rows.map((r) => [
      r.name,
      r.provider,
      n(r.context_window),
      n(r.max_output_tokens),
      r.price ? `${r.price.input}/${r.price.output}` : '-',
      [
        r.source !== 'catalog' ? r.source : '',
        r.short_names.length ? `short ${r.short_names.join(', ')}` : '',
        r.default_for.length ? `default for ${r.default_for.join(', ')}` : '',
      ]
        .filter(Boolean)
        .join('; '),
    ]),
  ].map((row) => row.map((cell) => forStream(process.stdout, cell)));
  const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
  for (const row of table)
    process.stdout.write(
      `${row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i])))
        .join('  ')
        .trimEnd()}\n`,
    );
  process.stdout.write('Prices are list prices (an estimate). Other names work with --provider; config models.<name> adds them.\n');
  return 0;
}
