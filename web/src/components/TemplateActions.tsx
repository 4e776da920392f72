import { useRef, useState } from 'preact/hooks';
import { api, type Template } from '../api.js';
import { ErrorText } from './Alert.js';

/** Rename, freeze or unfreeze, replace the file, delete: for one template. */
export function TemplateActions(props: {
  template: Template;
  onChanged: (t: Template) => void;
  onDeleted: () => void;
}) {
  const t = props.template;
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(t.name);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  const run = async (what: string, fn: () => Promise<void>) => {
    setBusy(what);
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };
  const patch = (body: Partial<Template>) =>
    run('patch', async () => {
      const res = await api.send<{ data: Template }>('PATCH', `/templates/${t.id}`, body);
      props.onChanged(res.data);
      setRenaming(false);
    });
  const replace = (file: File) =>
    run('replace', async () => {
      const form = new FormData();
      form.append('file', file, file.name);
      const res = await api.send<{ data: Template }>('PUT', `/templates/${t.id}/file`, form);
      props.onChanged(res.data);
    });
  const remove = () => {
    if (!window.confirm(`Delete the template "${t.name}"? This cannot be undone; renders already made stay.`)) return;
    run('delete', async () => {
      await api.delete(`/templates/${t.id}`);
      props.onDeleted();
    });
  };
  const frozenHint = t.isFrozen ? 'Unfreeze the template first' : undefined;

  return (
    <div class="actions">
      {renaming ? (
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            patch({ name });
          }}
        >
          <label for={`rename-${t.id}`} class="visually-hidden">
            New name for {t.name}
          </label>
          <input
            id={`rename-${t.id}`}
            value={name}
            maxLength={200}
            required
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
          <button type="submit" disabled={busy !== null}>
            Save
          </button>
          <button type="button" class="link" onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <button
          type="button"
          disabled={t.isFrozen || busy !== null}
          title={frozenHint}
          onClick={() => {
            setName(t.name);
            setRenaming(true);
          }}
        >
          Rename
        </button>
      )}
      <button type="button" disabled={busy !== null} onClick={() => patch({ isFrozen: !t.isFrozen })}>
        {t.isFrozen ? 'Unfreeze' : 'Freeze'}
      </button>
      <button
        type="button"
        disabled={t.isFrozen || busy !== null}
        title={frozenHint}
        onClick={() => fileInput.current?.click()}
      >
        {busy === 'replace' ? 'Replacing…' : 'Replace file'}
      </button>
      <input
        ref={fileInput}
        type="file"
        accept="application/pdf,.pdf"
        class="visually-hidden"
        tabIndex={-1}
        aria-label={`Replacement PDF for ${t.name}`}
        onChange={(e) => {
          const input = e.target as HTMLInputElement;
          const file = input.files?.[0];
          input.value = '';
          if (file) replace(file);
        }}
      />
      <button type="button" class="danger" disabled={t.isFrozen || busy !== null} title={frozenHint} onClick={remove}>
        Delete
      </button>
      <ErrorText error={error} />
    </div>
  );
}
