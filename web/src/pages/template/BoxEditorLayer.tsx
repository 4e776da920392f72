// One page's editing layer over the page image: the fields' boxes (pending ones drawn as such), the
// selected box's corner handles, and the gestures (pointer events: mouse, pen and touch alike; arrow
// keys) that draw, move and resize. It reports finished gestures in PDF points and keeps no field state.
import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Draft } from './BoxEditorDrafts.js';
import { type Detection, isLow, percent } from './detection-review.js';
import {
  growRect,
  type Handle,
  moveRect,
  type PageFrame,
  type Rect,
  rectToScreen,
  resizeBox,
  type ScreenBox,
  screenToRect,
  shownSize,
  spanBox,
} from './edit-geometry.js';

/** A finished gesture, in user space. */
export type EditGesture =
  | { kind: 'draw'; page: number; rect: Rect }
  | { kind: 'move' | 'resize'; id: string; widget: number; rect: Rect };

interface Props {
  page: number;
  frame: PageFrame;
  drafts: Draft[];
  base: Draft[];
  selected: string | null;
  errorKeys: ReadonlySet<string>;
  tool: string;
  disabled: boolean;
  onSelect: (id: string | null) => void;
  onGesture: (g: EditGesture) => void;
  onDelete: (id: string) => void;
  /** fields under review by draft id: drawn with their key, type and confidence, low ones marked */
  detections?: ReadonlyMap<string, Detection>;
}

/** A drag in progress, in shown points (px / scale) from the page's top left corner. */
interface Drag {
  kind: 'draw' | 'move' | 'resize';
  pointer: number;
  scale: number;
  x0: number;
  y0: number;
  x: number;
  y: number;
  id?: string;
  widget?: number;
  handle?: Handle;
  /** the dragged widget's box when the drag began */
  box?: ScreenBox;
}

/** The smallest side (points) a box can be resized to. */
const MIN_SIDE = 4;
const HANDLES: Handle[] = ['nw', 'ne', 'sw', 'se'];

const KEY_MOVES: Record<string, [number, number]> = {
  ArrowLeft: [-1, 0],
  ArrowRight: [1, 0],
  ArrowUp: [0, -1],
  ArrowDown: [0, 1],
};

export function EditLayer(props: Props) {
  const { frame } = props;
  const layer = useRef<HTMLDivElement>(null);
  const [drag, setDrag] = useState<Drag | null>(null);
  const size = shownSize(frame);

  // a long press while drawing or on a box is part of the gesture, not a request for the context menu
  const drawing = props.tool !== 'select';
  useEffect(() => {
    const el = layer.current;
    if (!el) return;
    const menu = (e: Event) => (drawing || e.target !== el) && e.preventDefault();
    el.addEventListener('contextmenu', menu);
    return () => el.removeEventListener('contextmenu', menu);
  }, [drawing]);
  const pct = (b: ScreenBox) => ({
    left: `${(b.left / size.width) * 100}%`,
    top: `${(b.top / size.height) * 100}%`,
    width: `${(b.width / size.width) * 100}%`,
    height: `${(b.height / size.height) * 100}%`,
  });

  /** Where a pointer is on the shown page, in points, and the px-per-point scale now. */
  const locate = (e: PointerEvent) => {
    const r = layer.current!.getBoundingClientRect();
    const scale = r.width / size.width;
    return { scale, x: (e.clientX - r.left) / scale, y: (e.clientY - r.top) / scale };
  };
  const begin = (e: PointerEvent, d: Omit<Drag, 'pointer' | 'scale' | 'x0' | 'y0' | 'x' | 'y'>) => {
    const at = locate(e);
    layer.current!.setPointerCapture(e.pointerId);
    setDrag({ ...d, pointer: e.pointerId, scale: at.scale, x0: at.x, y0: at.y, x: at.x, y: at.y });
    e.preventDefault();
  };

  /** The dragged box as it would be now, in shown points. */
  const dragged = (d: Drag): ScreenBox => {
    const dx = d.x - d.x0;
    const dy = d.y - d.y0;
    if (d.kind === 'draw') return spanBox(d.x0, d.y0, d.x, d.y);
    if (d.kind === 'move') return { ...d.box!, left: d.box!.left + dx, top: d.box!.top + dy };
    return resizeBox(d.box!, d.handle!, dx, dy, MIN_SIDE);
  };

  const onPointerDown = (e: JSX.TargetedPointerEvent<HTMLDivElement>) => {
    if (props.disabled || e.button > 0) return;
    if (props.tool === 'select') {
      if (e.target === layer.current) props.onSelect(null);
      return;
    }
    begin(e, { kind: 'draw' });
  };
  const onPointerMove = (e: JSX.TargetedPointerEvent<HTMLDivElement>) => {
    if (!drag || e.pointerId !== drag.pointer) return;
    const at = locate(e);
    setDrag({ ...drag, x: at.x, y: at.y });
  };
  const onPointerUp = (e: JSX.TargetedPointerEvent<HTMLDivElement>) => {
    if (!drag || e.pointerId !== drag.pointer) return;
    const at = locate(e);
    const done = { ...drag, x: at.x, y: at.y };
    setDrag(null);
    // a press without a move (under half a pixel) selects; it changes nothing
    const moved = Math.hypot(done.x - done.x0, done.y - done.y0) * done.scale >= 0.5;
    const rect = screenToRect(frame, 1, dragged(done));
    if (done.kind === 'draw') props.onGesture({ kind: 'draw', page: props.page, rect });
    else if (moved) props.onGesture({ kind: done.kind, id: done.id!, widget: done.widget!, rect });
  };

  const onKeyDown = (e: KeyboardEvent, d: Draft, widget: number) => {
    if (props.disabled) return;
    const step = KEY_MOVES[e.key];
    if (step) {
      const n = e.shiftKey ? 10 : 1;
      const rect = d.widgets[widget].rect;
      // arrows move the field by 1 pt (shift: 10); with alt they grow or shrink it from its top left
      const next = e.altKey
        ? growRect(frame, rect, step[0] * n, step[1] * n)
        : moveRect(frame, rect, step[0] * n, step[1] * n);
      props.onGesture({ kind: e.altKey ? 'resize' : 'move', id: d.id, widget, rect: next });
      e.preventDefault();
    } else if (e.key === 'Delete' || e.key === 'Backspace') {
      props.onDelete(d.id);
      e.preventDefault();
    } else if (e.key === 'Escape') {
      props.onSelect(null);
    }
  };

  const before = new Map(props.base.map((d) => [d.id, d]));
  const boxes: JSX.Element[] = [];
  for (const d of props.drafts) {
    d.widgets.forEach((w, i) => {
      if (w.page !== props.page) return;
      const live = drag && drag.kind !== 'draw' && drag.id === d.id;
      // while dragging, a move shifts every widget of the field, a resize only the one held
      let box = rectToScreen(frame, 1, w.rect);
      if (live && drag.kind === 'move')
        box = { ...box, left: box.left + drag.x - drag.x0, top: box.top + drag.y - drag.y0 };
      else if (live && drag.widget === i) box = dragged(drag);
      const was = before.get(d.id);
      const pending = !was || d.deleted || JSON.stringify({ ...was }) !== JSON.stringify({ ...d });
      const isSelected = props.selected === d.id;
      const det = d.deleted ? undefined : props.detections?.get(d.id);
      const cls = [
        det && 'detected',
        det && isLow(det) && 'low',
        'edit-box',
        pending && 'pending',
        !was && 'new',
        d.deleted && 'deleted',
        isSelected && 'selected',
        props.errorKeys.has(d.key) && 'has-error',
      ].filter(Boolean);
      boxes.push(
        <button
          type="button"
          key={`${d.id}:${i}`}
          class={cls.join(' ')}
          style={pct(box)}
          data-key={d.key}
          data-widget={i}
          tabIndex={d.deleted || props.disabled ? -1 : 0}
          aria-label={`${d.deleted ? 'Deleted field' : det ? 'Detected field' : 'Field'} ${d.key} (${d.type})${
            det ? `, confidence ${percent(det)}${isLow(det) ? ', low' : ''}` : ''
          }${pending && !d.deleted ? ', not saved' : ''}`}
          aria-pressed={isSelected}
          title={det ? `${d.key} (${d.type}, ${percent(det)}): ${det.label ?? 'no caption found'}` : d.key}
          onFocus={() => !d.deleted && props.onSelect(d.id)}
          onKeyDown={(e) => !d.deleted && onKeyDown(e, d, i)}
          onPointerDown={(e) => {
            if (props.disabled || d.deleted || props.tool !== 'select' || e.button > 0) return;
            e.stopPropagation();
            props.onSelect(d.id);
            (e.currentTarget as HTMLElement).focus({ preventScroll: true });
            begin(e, { kind: 'move', id: d.id, widget: i, box: rectToScreen(frame, 1, w.rect) });
          }}
        >
          {det && i === 0 && (
            // a box in the page's right part hangs its tag leftwards, so it stays on the page
            <span class={`edit-tag${box.left > size.width * 0.55 ? ' end' : ''}`} aria-hidden="true">
              {isLow(det) && <b>? </b>}
              {d.key} · {d.type} · {percent(det)}
            </span>
          )}
          {isSelected &&
            !props.disabled &&
            HANDLES.map((h) => (
              <span
                key={h}
                class={`edit-handle ${h}`}
                data-handle={h}
                aria-hidden="true"
                onPointerDown={(e) => {
                  if (e.button > 0) return;
                  e.stopPropagation();
                  begin(e, { kind: 'resize', id: d.id, widget: i, handle: h, box: rectToScreen(frame, 1, w.rect) });
                }}
              />
            ))}
        </button>,
      );
    });
  }

  return (
    <div
      ref={layer}
      class={`edit-layer${props.tool !== 'select' && !props.disabled ? ' drawing' : ''}`}
      data-page={props.page}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={() => setDrag(null)}
    >
      {boxes}
      {drag?.kind === 'draw' && <div class="edit-rubber" style={pct(dragged(drag))} />}
    </div>
  );
}
