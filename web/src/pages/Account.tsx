import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, type AccountSettings, type Usage } from '../api.js';
import { ErrorText } from '../components/Alert.js';

/** Suggestions only: the API takes any BCP 47 tag Intl knows and any IANA zone. */
const LOCALES = ['en-US', 'en-GB', 'fr-FR', 'de-DE', 'es-ES', 'it-IT', 'nl-NL', 'pt-BR', 'ja-JP', 'zh-CN', 'ar-EG'];
const zones = (): string[] => {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return ['UTC', 'Europe/London', 'Europe/Paris', 'America/New_York', 'Asia/Tokyo'];
  }
};

/** A locale's name in the user's language, to confirm what a tag means ("en-GB" -> "British English"). */
function localeName(tag: string): string | null {
  try {
    return new Intl.DisplayNames(undefined, { type: 'language' }).of(tag) ?? null;
  } catch {
    return null;
  }
}

const describeLocale = (tag: string) => {
  const name = localeName(tag);
  return name ? `${tag} (${name})` : tag;
};

export function AccountPage() {
  const [usage, setUsage] = useState<Usage | null>(null);
  const [settings, setSettings] = useState<AccountSettings | null>(null);
  const [locale, setLocale] = useState('');
  const [timezone, setTimezone] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const [saving, setSaving] = useState(false);

  const show = (s: AccountSettings) => {
    setSettings(s);
    setLocale(s.locale ?? '');
    setTimezone(s.timezone ?? '');
  };
  useEffect(() => {
    api.get<{ data: Usage }>('/renders/usage').then((u) => setUsage(u.data), setError);
    api.get<{ data: AccountSettings }>('/account/settings').then((r) => show(r.data), setError);
  }, []);

  const save = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setSaved(false);
    setSaving(true);
    try {
      // an empty box is "the server's default" (null)
      const res = await api.send<{ data: AccountSettings }>('PATCH', '/account/settings', {
        locale: locale.trim() || null,
        timezone: timezone.trim() || null,
      });
      show(res.data);
      setSaved(true);
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
    }
  };
  const invalid = (field: string) =>
    error instanceof ApiError && error.code === 'VALIDATION_ERROR' && error.details?.field === field;
  const changed =
    settings !== null && (locale.trim() !== (settings.locale ?? '') || timezone.trim() !== (settings.timezone ?? ''));
  const server = settings && {
    // the effective value of an unset field is the server's
    locale: settings.locale === null ? settings.effective.locale : null,
    timezone: settings.timezone === null ? settings.effective.timezone : null,
  };

  return (
    <section>
      <h1>Account</h1>
      {usage && <p class="lead">{usage.plan} plan</p>}
      <ErrorText error={error} />
      <form class="card account-settings" onSubmit={save} aria-labelledby="render-defaults">
        <h2 id="render-defaults">Render defaults</h2>
        <p class="hint">
          How dates and numbers are written when a render's request gives no <code>locale</code> or{' '}
          <code>timezone</code> and its template sets none. Leave a box empty for the server's default.
        </p>
        <div class="settings-grid">
          <label for="account-locale">Locale</label>
          <div>
            <input
              id="account-locale"
              list="account-locales"
              value={locale}
              maxLength={100}
              placeholder={server?.locale ? `Server default (${server.locale})` : 'Server default'}
              aria-invalid={invalid('locale') || undefined}
              aria-describedby="account-locale-hint"
              onInput={(e) => {
                setLocale((e.target as HTMLInputElement).value);
                setSaved(false);
              }}
            />
            <datalist id="account-locales">
              {LOCALES.map((l) => (
                <option key={l} value={l} />
              ))}
            </datalist>
            <p class="hint" id="account-locale-hint">
              A BCP 47 tag such as en-US. {settings && `Renders use ${describeLocale(settings.effective.locale)}.`}
            </p>
          </div>
          <label for="account-timezone">Time zone</label>
          <div>
            <input
              id="account-timezone"
              list="account-timezones"
              value={timezone}
              maxLength={100}
              placeholder={server?.timezone ? `Server default (${server.timezone})` : 'Server default'}
              aria-invalid={invalid('timezone') || undefined}
              aria-describedby="account-timezone-hint"
              onInput={(e) => {
                setTimezone((e.target as HTMLInputElement).value);
                setSaved(false);
              }}
            />
            <datalist id="account-timezones">
              {zones().map((z) => (
                <option key={z} value={z} />
              ))}
            </datalist>
            <p class="hint" id="account-timezone-hint">
              An IANA zone such as America/New_York; date-times are converted to it.{' '}
              {settings && `Renders use ${settings.effective.timezone}.`}
            </p>
          </div>
        </div>
        <div class="actions">
          <button type="submit" class="primary" disabled={saving || !changed}>
            {saving ? 'Saving…' : 'Save'}
          </button>
          {saved && (
            <p class="alert ok" role="status">
              Saved. A request's options and a template's own defaults still come first.
            </p>
          )}
        </div>
      </form>
    </section>
  );
}
