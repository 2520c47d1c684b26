const WORDS = [
  'parser',
  'handles',
  'nested',
  'blocks',
  'reports',
  'errors',
  'clearly',
  'module',
  'returns',
  'value',
  'when',
  'the',
  'input',
  'is',
  'large',
  'and',
  'every',
  'line',
  'keeps',
  'its',
  'order',
];
const w = (k: number) => WORDS[k % WORDS.length];

/**
 * `lines` prose-like lines (~22 tokens each) of file `n`, on which Keen's local estimate and the
 * fakes' chars/4 usage agree (±2 %): what the compaction tests fill a context with.
 */
export function prose(label: string, n: number, lines: number): string {
  return Array.from(
    { length: lines },
    (_, k) => `entry ${k} of ${label} ${n}: the ${w(k)} ${w(k * 7)} ${w(k * 11)} and ${w(k * 5)} the ${w(k * 3)} while ${w(k * 13)} stays ${w(k * 17)}.`,
  ).join('\n');
}
