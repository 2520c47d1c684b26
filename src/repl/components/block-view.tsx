import { Box } from 'ink';
import { Fragment, memo } from 'react';
import { Text } from './text.js';
import { color, type Role } from '../theme.js';

/** Colours by glyph: `/context`'s bar shades (one per part, in contextLines' order), its `|` and `·`. */
const PALETTES: Record<'context', Record<string, { role?: Role; dim?: boolean }>> = {
  context: {
    '█': { role: 'accent' },
    '▓': { role: 'keyword' },
    '▒': { role: 'success' },
    '░': { role: 'number' },
    '▚': { role: 'link' },
    '|': { role: 'warning' },
    '·': { dim: true },
  },
};

export type BlockPalette = keyof typeof PALETTES;

/** A line cut into runs of palette glyphs (coloured) and other text (plain). */
function runs(line: string, glyphs: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const ch of line) {
    const last = out.at(-1);
    if (last !== undefined && (ch in glyphs ? last[0] === ch : !(last[0] in glyphs))) out[out.length - 1] = last + ch;
    else out.push(ch);
  }
  return out;
}

/** A titled block of command output (`/help`, `/context`, …); with a palette its glyphs are coloured. */
export const BlockView = memo(function BlockView({ title, lines, palette }: { title: string; lines: readonly string[]; palette?: BlockPalette }) {
  const glyphs = palette ? PALETTES[palette] : undefined;
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text bold>{title}</Text>
      <Box paddingLeft={2}>
        {glyphs ? (
          <Text>
            {lines.map((line, i) => (
              <Fragment key={i}>
                {i > 0 ? '\n' : ''}
                {runs(line, glyphs).map((run, k) => {
                  const style = glyphs[run[0]];
                  return style ? (
                    <Text key={k} color={style.role ? color(style.role) : undefined} dimColor={style.dim}>
                      {run}
                    </Text>
                  ) : (
                    run
                  );
                })}
              </Fragment>
            ))}
          </Text>
        ) : (
          <Text>{lines.join('\n')}</Text>
        )}
      </Box>
    </Box>
  );
});
