import { useEffect, useState } from 'preact/hooks';
import { api, storedKey, type ApiKey, type ApiKeyCreated } from '../api.js';
import { ErrorText } from '../components/Alert.js';
import { formatDate } from '../format.js';

export function ApiKeysPage() {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<ApiKeyCreated | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [reload, setReload] = useState(0);
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    // every key, page after page (the API answers 20 by default; an account has few)
    const all: ApiKey[] = [];
    const page = (after?: string): Promise<ApiKey[]> =>
      api
        .get<{ data: ApiKey[]; meta: { hasMore: boolean; nextCursor: string | null } }>(
          `/api-keys?limit=100${after ? `&starting_after=${encodeURIComponent(after)}` : ''}`,
        )
        .then((r) => {
          all.push(...r.data);
          return r.meta.hasMore && r.meta.nextCursor ? page(r.meta.nextCursor) : all;
        });
    page().then(setKeys, setError);
  }, [reload]);
  const mine = storedKey()?.slice(0, 12);

  /** The clipboard API needs a secure context (https or localhost); elsewhere select the key to copy. */
  const copy = (key: string) => {
    const select = () => {
      const el = document.querySelector('[data-testid="new-key"]');
      if (el) window.getSelection()?.selectAllChildren(el);
    };
    if (navigator.clipboard) navigator.clipboard.writeText(key).then(() => setCopied(true), select);
    else select();
  };

  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setCopied(false);
    try {
      const res = await api.send<{ data: ApiKeyCreated }>('POST', '/api-keys', {
        name: name.trim() || 'dashboard',
      });
      setCreated(res.data);
      setName('');
      setReload((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };
  const revoke = async (k: ApiKey) => {
    const self = k.prefix === mine;
    const warning = self ? ' This is the key you are signed in with: you will be signed out.' : '';
    if (!window.confirm(`Revoke the key "${k.name}" (${k.prefix}…)? Programs using it stop working at once.${warning}`))
      return;
    try {
      await api.delete(`/api-keys/${k.id}`);
      if (created?.id === k.id) setCreated(null);
      setReload((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section>
      <h1>API keys</h1>
      <p class="lead">Keys let programs call the API. A new key is shown once: copy it somewhere safe.</p>
      <form class="inline-form card" onSubmit={create}>
        <label for="key-name">Name of the new key</label>
        <input
          id="key-name"
          value={name}
          maxLength={200}
          placeholder="e.g. billing server"
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
        <button type="submit" class="primary">
          Create key
        </button>
      </form>
      {created && (
        <div class="card secret" role="status">
          <p>
            <strong>New key "{created.name}"</strong>: shown this once only.
          </p>
          <p>
            <code data-testid="new-key">{created.key}</code>{' '}
            <button type="button" onClick={() => copy(created.key)}>
              {copied ? 'Copied' : 'Copy'}
            </button>{' '}
            <button type="button" class="link" onClick={() => setCreated(null)}>
              Done, hide it
            </button>
          </p>
        </div>
      )}
      <ErrorText error={error} />
      {keys && (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id}>
                  <td data-label="Name">{k.name}</td>
                  <td data-label="Key">
                    <code>{k.prefix}…</code>
                    {k.prefix === mine && <span class="badge">this tab</span>}
                  </td>
                  <td data-label="Created">{formatDate(k.createdAt)}</td>
                  <td data-label="Last used">{formatDate(k.lastUsedAt)}</td>
                  <td data-label="State">
                    {k.revokedAt ? (
                      <span class="muted">revoked {formatDate(k.revokedAt)}</span>
                    ) : (
                      <button type="button" class="danger" onClick={() => revoke(k)}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
