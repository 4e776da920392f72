import { useState } from 'preact/hooks';

/**
 * A PDF file picker that also takes a dropped file. The real file input covers the whole zone (and is
 * invisible): a click anywhere opens the picker, a file dropped anywhere lands in the input natively,
 * and keyboard and screen-reader users get an ordinary labelled file input.
 */
export function DropZone(props: { id: string; busy: boolean; onFile: (file: File) => void }) {
  const [over, setOver] = useState(false);
  return (
    <div class={`dropzone${over ? ' over' : ''}${props.busy ? ' busy' : ''}`} data-testid="dropzone">
      <label for={props.id}>
        <strong>{props.busy ? 'Uploading and analysing…' : 'Drop a PDF form here'}</strong>
        <span>or click to choose a file (a PDF form; a PDF without one can have its fields detected)</span>
      </label>
      <input
        id={props.id}
        type="file"
        accept="application/pdf,.pdf"
        disabled={props.busy}
        onDragEnter={() => setOver(true)}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          // take the file ourselves (the browser would also put it in the input, but only for a real drag)
          e.preventDefault();
          setOver(false);
          const file = e.dataTransfer?.files[0];
          if (file && !props.busy) props.onFile(file);
        }}
        onChange={(e) => {
          const input = e.target as HTMLInputElement;
          const file = input.files?.[0];
          input.value = '';
          if (file) props.onFile(file);
        }}
      />
    </div>
  );
}
