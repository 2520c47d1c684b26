import { Box } from 'ink';
import { Text } from './text.js';
import { memo } from 'react';
import type { ToolCardData } from '../state/ui-state.js';
import { color } from '../theme.js';
import { DiffView } from './diff-view.js';
import { ErrorCard } from './error-card.js';
import { LIVE_TAIL_CHARS } from '../../tools/output-cap.js';
import { liveLines } from '../card-output.js';
import { INPUT_CHANGED_MARK } from '../../tools/summary.js';

/** Output lines a collapsed card shows. */
export const PREVIEW_LINES = 3;
/** Diff lines a collapsed card shows. */
export const PREVIEW_DIFF_LINES = 12;

function Header({ card }: { card: ToolCardData }) {
  const glyph = card.status === 'running' ? '○' : card.status === 'done' ? '✓' : '✗';
  const role = card.status === 'running' ? 'warning' : card.status === 'done' ? 'success' : 'error';
  return (
    <Box>
      <Text color={color(role)}>{glyph} </Text>
      <Box flexShrink={1}>
        <Text>
          <Text bold>{card.name}</Text>
          {card.args ? <Text> {card.args}</Text> : null}
          {card.status === 'running' ? <Text dimColor> running…</Text> : null}
        </Text>
      </Box>
    </Box>
  );
}

function Output({ text, expanded }: { text: string; expanded: boolean }) {
  const all = text.replace(/\n+$/, '').split('\n');
  const lines = expanded ? all : all.slice(0, PREVIEW_LINES);
  const hidden = all.length - lines.length;
  return (
    <Box flexDirection="row">
      <Text dimColor>{'  ⎿ '}</Text>
      <Box flexDirection="column" flexShrink={1}>
        <Text dimColor>{lines.join('\n')}</Text>
        {hidden > 0 && <Text dimColor>… +{hidden} lines (ctrl+o to expand)</Text>}
      </Box>
    </Box>
  );
}

/** The last lines a running call printed (bash), under its header. */
function LiveOutput({ tail }: { tail: string }) {
  const lines = liveLines(tail, tail.length >= LIVE_TAIL_CHARS).slice(-PREVIEW_LINES);
  return (
    <Box flexDirection="row">
      <Text dimColor>{'  ⎿ '}</Text>
      <Box flexDirection="column" flexShrink={1}>
        <Text dimColor>{lines.join('\n')}</Text>
      </Box>
    </Box>
  );
}

/** The line under the header of a call a PreToolUse hook rewrote (the header shows what ran). */
function ChangedLine() {
  return (
    <Box flexDirection="row">
      <Text dimColor>{`  ⎿ ${INPUT_CHANGED_MARK}`}</Text>
    </Box>
  );
}

/** The nested line of a running subagent: its name, requests so far and current tool. */
function ChildLine({ child }: { child: NonNullable<ToolCardData['child']> }) {
  const turns = `${child.turns} ${child.turns === 1 ? 'request' : 'requests'}`;
  return (
    <Box flexDirection="row">
      <Text dimColor>{'  ⎿ '}</Text>
      <Text dimColor>{`${child.agent} · ${turns}${child.tool ? ` · running ${child.tool}` : ''}`}</Text>
    </Box>
  );
}

/**
 * One tool call: status glyph, name, arguments on one line, then collapsed output (a coloured
 * diff for edits); while a bash call runs, the last lines it printed. A failed call — including a call refused during compaction — is an error card.
 */
export const ToolCard = memo(function ToolCard({ card, expanded }: { card: ToolCardData; expanded: boolean }) {
  if (card.status === 'error') {
    const title = `${card.name}${card.args ? ` ${card.args}` : ''}${card.inputChanged ? ` ${INPUT_CHANGED_MARK}` : ''}`;
    return <ErrorCard title={title} message={card.output} maxLines={expanded ? undefined : 6} />;
  }
  return (
    <Box flexDirection="column" marginTop={1}>
      <Header card={card} />
      {card.inputChanged ? <ChangedLine /> : null}
      {card.diff ? (
        <Box paddingLeft={4} flexDirection="column">
          <DiffView diff={card.diff} maxLines={expanded ? undefined : PREVIEW_DIFF_LINES} />
        </Box>
      ) : null}
      {card.child && card.status === 'running' ? <ChildLine child={card.child} /> : null}
      {card.live && card.status === 'running' ? <LiveOutput tail={card.live} /> : null}
      {card.status === 'done' && card.output && !card.diff ? <Output text={card.output} expanded={expanded} /> : null}
      {card.status === 'done' && card.output && card.diff ? <Output text={card.output.split('\n')[0]} expanded={false} /> : null}
    </Box>
  );
});
