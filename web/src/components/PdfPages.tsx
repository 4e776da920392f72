import { TextLayer, type PDFDocumentProxy } from 'pdfjs-dist';
import type { PageViewport } from 'pdfjs-dist/types/src/display/display_utils.js';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Box } from '../pdf.js';

interface Props {
  doc: PDFDocumentProxy;
  boxes: Box[];
  /** the field whose boxes are highlighted */
  active: string | null;
  onHover?: (field: string | null) => void;
  onPick?: (field: string) => void;
  /** lay pdf.js's text layer over the page (selectable, searchable text) */
  textLayer?: boolean;
  label: string;
  /** drawn over each page once its size is known (the box editor's layer) */
  overlay?: (pageNumber: number, viewport: PageViewport) => ComponentChildren;
}

/** Every page of `doc` drawn by pdf.js, with the field boxes over it. */
export function PdfPages(props: Props) {
  const pages = Array.from({ length: props.doc.numPages }, (_, i) => i + 1);
  return (
    <section class="pdf-pages" aria-label={props.label}>
      {pages.map((n) => (
        <PageView key={n} {...props} pageNumber={n} boxes={props.boxes.filter((b) => b.page === n)} />
      ))}
    </section>
  );
}

function PageView(props: Props & { pageNumber: number }) {
  const { doc, pageNumber } = props;
  const holder = useRef<HTMLDivElement>(null);
  const text = useRef<HTMLDivElement>(null);
  const [viewport, setViewport] = useState<PageViewport | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  // Pages are drawn once near the screen: a long form's preview redraws only what can be seen.
  const [near, setNear] = useState(false);

  useEffect(() => {
    const el = holder.current;
    if (!el) return;
    const io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && setNear(true), {
      rootMargin: '400px 0px',
    });
    io.observe(el);
    return () => io.disconnect();
  }, []);

  useEffect(() => {
    let cancelled = false;
    doc.getPage(pageNumber).then(
      (page) => !cancelled && setViewport(page.getViewport({ scale: 1 })),
      () => {},
    );
    return () => {
      cancelled = true;
    };
  }, [doc, pageNumber]);

  useEffect(() => {
    if (!near) return;
    let cancelled = false;
    let task: { cancel(): void } | null = null;
    (async () => {
      const page = await doc.getPage(pageNumber);
      const vp = page.getViewport({ scale: 1 });
      if (cancelled) return;
      // Sharp at the width it is shown (and on high-density screens), bounded for huge pages.
      const cssWidth = Math.max(holder.current?.clientWidth ?? 800, 600);
      const scale = Math.min((cssWidth / vp.width) * (window.devicePixelRatio || 1), 4);
      const drawn = page.getViewport({ scale });
      const canvas = document.createElement('canvas');
      canvas.width = Math.floor(drawn.width);
      canvas.height = Math.floor(drawn.height);
      canvas.setAttribute('aria-hidden', 'true');
      const render = page.render({ canvasContext: canvas.getContext('2d')!, viewport: drawn });
      task = render;
      await render.promise;
      if (cancelled) return;
      // swap only once drawn: a new preview replaces the old one without a blank flash
      holder.current?.querySelector('canvas')?.remove();
      holder.current?.prepend(canvas);
      if (props.textLayer && text.current) {
        text.current.replaceChildren();
        await new TextLayer({
          textContentSource: page.streamTextContent(),
          container: text.current,
          viewport: vp,
        }).render();
        text.current.dataset.ready = 'true';
      }
    })().catch((err: Error) => {
      if (!cancelled && err.name !== 'RenderingCancelledException') setFailed(err.message);
    });
    return () => {
      cancelled = true;
      task?.cancel();
    };
  }, [doc, pageNumber, near]);

  // pdf.js sizes the text layer with --scale-factor: CSS pixels per PDF point at the shown width.
  useEffect(() => {
    const el = holder.current;
    if (!el || !viewport) return;
    const update = () => el.style.setProperty('--scale-factor', String(el.clientWidth / viewport.width));
    update();
    const ro = new ResizeObserver(update);
    ro.observe(el);
    return () => ro.disconnect();
  }, [viewport]);

  const ratio = viewport ? `${viewport.width} / ${viewport.height}` : '1 / 1.294';
  return (
    <figure class="pdf-page">
      <div class="pdf-page-canvas" ref={holder} style={{ aspectRatio: ratio }} data-page={pageNumber}>
        {props.textLayer && <div class="textLayer" ref={text} />}
        {viewport &&
          props.boxes.map((b, i) => {
            const [x1, y1, x2, y2] = viewport.convertToViewportRectangle(b.rect);
            const left = Math.min(x1, x2);
            const top = Math.min(y1, y2);
            return (
              <button
                type="button"
                key={`${b.field}-${i}`}
                class={`field-box${props.active === b.field ? ' active' : ''}`}
                data-field={b.field}
                title={b.field}
                aria-label={`Field ${b.field}`}
                tabIndex={-1}
                style={{
                  left: `${(left / viewport.width) * 100}%`,
                  top: `${(top / viewport.height) * 100}%`,
                  width: `${(Math.abs(x2 - x1) / viewport.width) * 100}%`,
                  height: `${(Math.abs(y2 - y1) / viewport.height) * 100}%`,
                }}
                onMouseEnter={() => props.onHover?.(b.field)}
                onMouseLeave={() => props.onHover?.(null)}
                onClick={() => props.onPick?.(b.field)}
              />
            );
          })}
        {viewport && props.overlay?.(pageNumber, viewport)}
      </div>
      <figcaption>
        Page {pageNumber} of {doc.numPages}
        {failed && <span class="error"> — could not be drawn: {failed}</span>}
      </figcaption>
    </figure>
  );
}
