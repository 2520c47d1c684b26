import { Box, measureElement, Static, useInput, useStdout, type DOMElement } from 'ink';
import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { BoundedFrame, useTerminalSize } from './components/bounded-frame.js';
import { Footer } from './components/footer.js';
import { LiveTurnView } from './components/live-turn.js';
import { Loader } from './components/loader.js';
import { PermissionPrompt } from './components/permission-prompt.js';
import { Picker, PICKER_ROWS } from './components/picker.js';
import { INPUT_WINDOW_LINES, PromptInput } from './components/prompt-input.js';
import { QueueView } from './components/queue-view.js';
import { Suggestions } from './components/suggestions.js';
import { ToolCard } from './components/tool-card.js';
import { TRANSCRIPT_STYLE, TranscriptItemView } from './components/transcript-item.js';
import { createKeyRouter } from './input/key-router.js';
import { diffLineCount, frameRows, INPUT_FIXED_ROWS, PICKER_FIXED_ROWS, windowLines } from './live-bound.js';
import type { ReplRuntime } from './runtime.js';
import type { Scrollback } from './scrollback.js';
import type { TranscriptItem, UiState } from './state/ui-state.js';

/**
 * The whole screen. Finished transcript items go to `<Static>` (printed once, never redrawn);
 * below it only the live turn, a prompt or picker, the loader, the queue, the input and the
 * footer are redrawn. With a `scrollback` (the terminal REPL), the first `state.scrollback` items
 * are its job: written as plain text above the frame (see scrollback.ts), not through `<Static>`.
 */
export function App({ runtime, scrollback }: { runtime: ReplRuntime; scrollback?: Scrollback }) {
  const state = useSyncExternalStore(runtime.store.subscribe, runtime.store.getState);
  const router = useMemo(() => createKeyRouter(runtime), [runtime]);
  useInput(router.handle);
  const { write } = useStdout();
  useLayoutEffect(() => scrollback?.attach(write), [scrollback, write]);
  const { rows, columns } = useTerminalSize();
  // A prompt's detail that no longer fits a shrunk terminal is written whole above it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: rows and columns are the trigger (the broker reads the size itself)
  useEffect(() => runtime.broker.refit(), [runtime, rows, columns]);
  return (
    <Box flexDirection="column">
      <Transcript key={`${state.epoch}.${state.scrollback}`} items={state.items} skip={state.scrollback} />
      {state.closed ? null : <Screen state={state} onWiped={scrollback && (() => void scrollback.redraw({ tailFirst: true }).catch(() => undefined))} />}
    </Box>
  );
}

/**
 * Memoised so that a text delta that commits no line does not touch `<Static>`: Ink redraws at
 * once (unthrottled) whenever the Static node is updated.
 */
const Transcript = memo(function Transcript({ items, skip }: { items: TranscriptItem[]; skip: number }) {
  const shown = useMemo(() => (skip > 0 ? items.slice(skip) : items), [items, skip]);
  return (
    <Static items={shown} style={TRANSCRIPT_STYLE}>
      {(item) => <TranscriptItemView key={item.id} item={item} />}
    </Static>
  );
});

/** Rows of a card's header, margin and output around its diff. */
const CARD_ROWS = 4;
/** Rows under a running card: the loader, the input box with its margin, the footer. */
const BELOW_CARD_ROWS = 6;

/**
 * Everything below the transcript, never as tall as the terminal (see live-bound.ts): the live
 * text gets the rows the rest (measured after each layout) leaves, a running card shows its whole
 * diff (Ctrl+O) only if it fits, and the bounded frame cuts what is left over from the top.
 */
function Screen({ state, onWiped }: { state: UiState; onWiped?: () => void }) {
  const { rows, columns } = useTerminalSize();
  const chrome = useRef<DOMElement>(null);
  const [chromeRows, setChromeRows] = useState(0);
  useLayoutEffect(() => {
    const height = chrome.current ? measureElement(chrome.current).height : 0;
    if (height !== chromeRows) setChromeRows(height);
  });
  const asking = state.permission !== undefined || state.picker !== undefined;
  const limit = frameRows(rows);
  const tool = state.live?.tool;
  // While a permission prompt shows the diff, the running card does not repeat it.
  const card = tool && state.permission ? { ...tool, diff: undefined } : tool;
  const expanded = state.expandTools && (!card?.diff || diffLineCount(card.diff) + CARD_ROWS <= limit - BELOW_CARD_ROWS);
  return (
    <BoundedFrame onWiped={onWiped}>
      {state.live && <LiveTurnView live={state.live} columns={columns} maxRows={limit - chromeRows} />}
      <Box ref={chrome} flexDirection="column">
        {card && <ToolCard card={card} expanded={expanded} />}
        {state.permission && <PermissionPrompt view={state.permission} rows={rows} columns={columns} />}
        {state.picker && <Picker view={state.picker} maxRows={windowLines(rows, PICKER_FIXED_ROWS, PICKER_ROWS)} />}
        {state.busy && !state.permission && <Loader busy={state.busy} />}
        <QueueView queue={state.queue} />
        {/* Typed ahead while a prompt shows (input/prompt-guard.ts), the input stays in view. */}
        {(!asking || (state.permission && state.editor.text)) && (
          <Box flexDirection="column" marginTop={1}>
            <PromptInput editor={state.editor} windowLines={windowLines(rows, INPUT_FIXED_ROWS, INPUT_WINDOW_LINES)} />
            <Suggestions text={state.editor.text} candidates={state.candidates} selected={state.editor.menu} />
          </Box>
        )}
        <Footer session={state.session} exitArmed={state.exitArmed} />
      </Box>
    </BoundedFrame>
  );
}
