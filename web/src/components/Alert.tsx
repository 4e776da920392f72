import { ApiError } from '../api.js';

/** An error message for the user (role=alert, read out at once), with the API code when there is one. */
export function ErrorText({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <p class="alert error" role="alert">
      {message}
      {error instanceof ApiError && error.code !== 'NETWORK_ERROR' && <span class="code"> ({error.code})</span>}
    </p>
  );
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
