import { Box } from 'ink';
import { Text } from './text.js';
import { memo, useMemo } from 'react';
import { clipLiveLines, clippedAboveText } from '../live-bound.js';
import { classifyStreaming, type MarkdownLine, type MarkdownState } from '../markdown/line-classifier.js';
import type { LiveTurn } from '../state/ui-state.js';
import { MarkdownView } from './markdown-view.js';

function classifyHeld(text: string, md: MarkdownState): { lines: MarkdownLine[]; state: MarkdownState } {
  return text ? classifyStreaming(text.split('\n'), md) : { lines: [], state: md };
}

/** Held blank lines are not drawn until something follows them. */
function trimBlank(lines: MarkdownLine[]): MarkdownLine[] {
  let n = lines.length;
  while (n > 0 && lines[n - 1].kind === 'blank') n--;
  return n === lines.length ? lines : lines.slice(0, n);
}

/**
 * The text still streaming: the uncommitted lines (usually one partial line; a list or table
 * while it grows). At most `maxRows` rows at `columns`: a taller block shows its last rows under
 * a one-row `… N lines above` marker (live-bound.ts); the whole block is committed to the
 * transcript when it ends.
 */
export const LiveTurnView = memo(function LiveTurnView({ live, columns, maxRows }: { live: LiveTurn; columns: number; maxRows: number }) {
  let text = live.pending;
  if (live.lead) text = text.replace(/^(\s*\n)+/, '');
  // Held lines (a list or table still growing) change only at a line break: classify them once
  // and only the partial line on every delta, so their line objects stay the same between frames.
  const nl = text.lastIndexOf('\n');
  const heldText = nl < 0 ? '' : text.slice(0, nl);
  const held = useMemo(() => classifyHeld(heldText, live.md), [heldText, live.md]);
  const partial = nl < 0 ? text : text.slice(nl + 1);
  const lines = partial ? [...held.lines, ...classifyStreaming([partial], held.state).lines] : trimBlank(held.lines);
  if (lines.length === 0) return null;
  const lead = live.lead;
  // The segment's margin row is not drawn when the block is clipped (the marker takes its place).
  let clip = clipLiveLines(lines, columns, maxRows - (lead ? 1 : 0));
  if (lead && (clip.hidden > 0 || clip.cutTo !== undefined)) clip = clipLiveLines(lines, columns, maxRows);
  if (clip.shown.length === 0) return null;
  const clipped = clip.hidden > 0 || clip.cutTo !== undefined;
  const view = <MarkdownView lines={clip.shown} lead={lead && !clipped} />;
  return (
    <Box flexDirection="column">
      {clipped && (
        // One row, however narrow the terminal: the clip counted it as one.
        <Text dimColor wrap="truncate-end">
          {clippedAboveText(clip)}
        </Text>
      )}
      {clip.cutTo === undefined ? (
        view
      ) : (
        // One line taller than the room (a long paragraph still streaming): its last rows.
        <Box height={clip.cutTo} flexDirection="column" justifyContent="flex-end" overflow="hidden">
          <Box flexDirection="column" flexShrink={0}>
            {view}
          </Box>
        </Box>
      )}
    </Box>
  );
});
