import { Box, useStdout, type DOMElement } from 'ink';
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { frameRows } from '../live-bound.js';

/** The terminal's size, re-read on every resize. */
export function useTerminalSize(): { rows: number; columns: number } {
  const { stdout } = useStdout();
  const read = useCallback(() => ({ rows: stdout.rows || 24, columns: stdout.columns || 80 }), [stdout]);
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () =>
      setSize((old) => {
        const next = read();
        return next.rows === old.rows && next.columns === old.columns ? old : next;
      });
    stdout.on('resize', onResize);
    return () => void stdout.off('resize', onResize);
  }, [stdout, read]);
  return size;
}

/**
 * The live frame, never taller than {@link frameRows} of the terminal: the guarantee under the
 * components' own clipping (live-bound.ts), for what they cannot measure exactly (word wrap,
 * a long paste on a short terminal). Yoga gets a max height on this box (Ink's Box has no
 * `maxHeight` prop, so it is set on the node); the content keeps its height and sits at the
 * bottom, so its top is cut first and the prompt and footer stay.
 *
 * The max height is set before Ink's own resize handler lays out the frame again (a prepended
 * listener), so the first frame at a new height is already bounded. When the terminal got
 * shorter than the frame already on screen, Ink clears the screen and scrollback once anyway
 * (it compares the old frame's height with the new rows): `onWiped` is told, to write the
 * transcript again.
 */
export function BoundedFrame({ children, onWiped }: { children: ReactNode; onWiped?: () => void }) {
  const { stdout } = useStdout();
  const node = useRef<DOMElement | null>(null);
  const set = useRef<{ node: DOMElement; max: number } | undefined>(undefined);
  // Set only when the node or the value changes: every render runs this.
  const bound = useCallback(() => {
    const el = node.current;
    const max = frameRows(stdout.rows || 24);
    if (!el?.yogaNode || (set.current?.node === el && set.current.max === max)) return;
    el.yogaNode.setMaxHeight(max);
    set.current = { node: el, max };
  }, [stdout]);
  const ref = useCallback(
    (el: DOMElement | null) => {
      node.current = el;
      bound();
    },
    [bound],
  );
  // Overflow clipping costs Ink about a third of a frame's render: on only while the content is
  // taller than the bound. Until then (the first frame that grows past it) the box's height is
  // bounded anyway and what lies above the frame's top falls outside Ink's output buffer.
  const inner = useRef<DOMElement>(null);
  const [clipping, setClipping] = useState(false);
  useLayoutEffect(() => {
    bound();
    const tall = (inner.current?.yogaNode?.getComputedHeight() ?? 0) > frameRows(stdout.rows || 24);
    if (tall !== clipping) setClipping(tall);
  });
  const wiped = useRef(onWiped);
  wiped.current = onWiped;
  useEffect(() => {
    let rows = stdout.rows || 24;
    const onResize = () => {
      const shown = node.current?.yogaNode?.getComputedHeight() ?? 0;
      const next = stdout.rows || 24;
      bound();
      if (next < rows && shown >= next) wiped.current?.();
      rows = next;
    };
    stdout.prependListener('resize', onResize);
    return () => void stdout.off('resize', onResize);
  }, [stdout, bound]);
  return (
    <Box ref={ref} flexDirection="column" justifyContent="flex-end" overflow={clipping ? 'hidden' : 'visible'}>
      <Box ref={inner} flexDirection="column" flexShrink={0}>
        {children}
      </Box>
    </Box>
  );
}
