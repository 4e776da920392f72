import { useState } from 'preact/hooks';
import { api, ApiError, type Usage } from '../api.js';

export function SignIn(props: { notice: string | null; onSignedIn: (key: string, plan: string) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    const k = key.trim();
    if (!k) return setError('Enter an API key.');
    setBusy(true);
    setError(null);
    try {
      const usage = await api.get<{ data: Usage }>('/renders/usage', { key: k });
      props.onSignedIn(k, usage.data.plan);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? 'This API key is not valid.' : (err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="signin" id="main">
      <h1>formcast</h1>
      <p class="lead">Fill PDF forms with JSON. Sign in with an API key to manage templates and try them.</p>
      {props.notice && (
        <p class="notice" role="status">
          {props.notice}
        </p>
      )}
      <form onSubmit={submit} class="card">
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          placeholder="fc_live_…"
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
          aria-invalid={error ? true : undefined}
          aria-describedby="api-key-help api-key-error"
        />
        <p id="api-key-help" class="hint">
          Kept in this browser tab only: closing the tab signs you out. No key yet? On the server, run{' '}
          <code>npx formcast accounts create --name "My team" --plan Free</code>.
        </p>
        <p id="api-key-error" class="error" role="alert">
          {error}
        </p>
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
