import { Box } from 'ink';
import { Text } from './text.js';
import { memo } from 'react';
import type { MarkdownLine } from '../markdown/markdown-lines.js';
import { layoutTable, tableColumns, tableRecords, type TableLine } from '../markdown/table-block.js';
import { color } from '../theme.js';
import { useColumns } from './columns.js';
import { Spans, Tokens } from './spans.js';

/** The marker in front of the first line of an assistant text segment. */
export const TEXT_MARKER = '●';

/** Columns in front of the text: the marker's column. */
const MARKER_COLUMNS = 2;

/**
 * A heading, its level told apart: 1 underlined in the heading colour, 2 in the heading colour,
 * 3 bold, 4 to 6 bold and dim (colours off: underline, bold, dim still differ).
 */
function Heading({ line }: { line: Extract<MarkdownLine, { kind: 'heading' }> }) {
  if (line.level <= 1)
    return (
      <Text underline>
        <Spans spans={line.spans} bold role="heading" />
      </Text>
    );
  if (line.level === 2) return <Spans spans={line.spans} bold role="heading" />;
  if (line.level === 3) return <Spans spans={line.spans} bold />;
  return (
    <Text dimColor>
      <Spans spans={line.spans} bold />
    </Text>
  );
}

/** A finished table: aligned columns when they fit the width, else one `header: value` block per row. */
function Table({ line }: { line: TableLine }) {
  const width = useColumns() - MARKER_COLUMNS;
  if (tableColumns(line) > width) {
    return (
      <Box flexDirection="column">
        {tableRecords(line).map((record, i) => (
          <Box key={i} flexDirection="column" marginTop={i > 0 ? 1 : 0}>
            {record.map((field, k) => (
              <Text key={k}>
                <Text bold>{`${field.name}:`}</Text>
                {` ${field.value}`}
              </Text>
            ))}
          </Box>
        ))}
      </Box>
    );
  }
  const laid = layoutTable(line);
  return (
    <Box flexDirection="column">
      <Text bold>{laid.header}</Text>
      <Text dimColor>{laid.rule}</Text>
      {laid.rows.map((row, i) => (
        <Text key={i}>{row}</Text>
      ))}
    </Box>
  );
}

/** One line; memoised so lines that did not change between frames are not redrawn by React. */
const LineView = memo(function LineView({ line }: { line: MarkdownLine }) {
  switch (line.kind) {
    case 'blank':
      return <Text> </Text>;
    case 'heading':
      return <Heading line={line} />;
    case 'item':
      return (
        <Box paddingLeft={line.indent * 2}>
          <Text>{line.bullet} </Text>
          <Box flexGrow={1} flexShrink={1}>
            <Spans spans={line.spans} />
          </Box>
        </Box>
      );
    case 'quote':
      return (
        <Box>
          <Text color={color('muted')} dimColor={!color('muted')}>
            │{' '}
          </Text>
          <Box flexGrow={1} flexShrink={1}>
            <Text italic>
              <Spans spans={line.spans} />
            </Text>
          </Box>
        </Box>
      );
    case 'rule':
      // One row (as the live frame's bound counts it), cut in a terminal narrower than the rule.
      return (
        <Text dimColor wrap="truncate">
          {'─'.repeat(40)}
        </Text>
      );
    case 'fence':
      return line.open && line.info ? <Text dimColor>{line.info}</Text> : null;
    case 'code':
      return (
        <Box paddingLeft={2}>
          <Tokens tokens={line.tokens} />
        </Box>
      );
    case 'table-row':
      return line.separator ? <Text dimColor>{'─'.repeat(24)}</Text> : <Text>{line.cells.join(' │ ')}</Text>;
    case 'table':
      return <Table line={line} />;
    case 'text':
      return <Spans spans={line.spans} />;
  }
});

/** Lines of assistant Markdown; `lead` puts the segment marker in front of the first line. */
export const MarkdownView = memo(function MarkdownView({ lines, lead }: { lines: readonly MarkdownLine[]; lead: boolean }) {
  return (
    <Box flexDirection="row" marginTop={lead ? 1 : 0}>
      <Box width={2} flexShrink={0}>
        <Text>{lead ? TEXT_MARKER : ' '}</Text>
      </Box>
      <Box flexDirection="column" flexGrow={1} flexShrink={1}>
        {lines.map((line, i) => (
          <LineView key={i} line={line} />
        ))}
      </Box>
    </Box>
  );
});
