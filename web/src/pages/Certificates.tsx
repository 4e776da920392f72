import { useEffect, useState } from 'preact/hooks';
import { api, type SigningCertificate } from '../api.js';
import { ErrorText } from '../components/Alert.js';
import { formatDate } from '../format.js';

/** The file's bytes as base64, for the JSON upload (a .p12 is a few KiB). */
async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function CertificatesPage() {
  const [certs, setCerts] = useState<SigningCertificate[] | null>(null);
  const [file, setFile] = useState<File | null>(null);
  const [password, setPassword] = useState('');
  const [name, setName] = useState('');
  const [makeDefault, setMakeDefault] = useState(false);
  const [busy, setBusy] = useState(false);
  const [added, setAdded] = useState<SigningCertificate | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    api.get<{ data: SigningCertificate[] }>('/signing-certificates').then((r) => setCerts(r.data), setError);
  }, [reload]);

  const upload = async (e: Event) => {
    e.preventDefault();
    if (!file) return;
    setError(null);
    setAdded(null);
    setBusy(true);
    try {
      const res = await api.send<{ data: SigningCertificate }>('POST', '/signing-certificates', {
        pkcs12: await base64Of(file),
        password,
        ...(name.trim() ? { name: name.trim() } : {}),
        ...(makeDefault ? { default: true } : {}),
      });
      setAdded(res.data);
      setPassword('');
      setName('');
      setFile(null);
      (e.target as HTMLFormElement).reset();
      setReload((n) => n + 1);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const remove = async (c: SigningCertificate) => {
    const note = c.isDefault
      ? " It is the default: the newest certificate left becomes the default (none left: the operator's, if any; else renders with sign: true fail)."
      : '';
    if (!window.confirm(`Delete the certificate "${c.name}" and its key? Renders naming it stop being signed.${note}`))
      return;
    try {
      await api.delete(`/signing-certificates/${c.id}`);
      if (added?.id === c.id) setAdded(null);
      setReload((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };
  const expired = (c: SigningCertificate) => Date.parse(c.notAfter) <= Date.now();
  const operator = certs?.find((c) => c.owner === 'operator');

  return (
    <section>
      <h1>Signing certificates</h1>
      <p class="lead">
        Renders with <code>options.sign</code> are digitally signed (PAdES) with one of these. Upload a PKCS#12 file
        (.p12 or .pfx) holding an RSA or EC key and its certificate; the key is sealed on the server and never shown
        again. The password is used once, to open the file, and not kept.
      </p>
      {operator && (
        <p class="card" role="note">
          This server's operator offers a certificate to every account: <strong class="wrap">{operator.subject}</strong>
          , marked <em>operator</em> below.{' '}
          {operator.isDefault ? (
            <>
              Renders with <code>{'"sign": true'}</code> use it while you have no certificate of your own;{' '}
            </>
          ) : (
            <>
              Your default signs renders with <code>{'"sign": true'}</code>;{' '}
            </>
          )}
          <code>{`"sign": "${operator.id}"`}</code> always names it. Only the operator can change it.
        </p>
      )}
      <form class="card cert-form" onSubmit={upload}>
        <div class="field">
          <label for="cert-file">PKCS#12 file</label>
          <input
            id="cert-file"
            type="file"
            accept=".p12,.pfx,application/x-pkcs12"
            required
            onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0] ?? null)}
          />
        </div>
        <div class="field">
          <label for="cert-password">Its password</label>
          <input
            id="cert-password"
            type="password"
            autocomplete="off"
            value={password}
            onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
          />
        </div>
        <div class="field">
          <label for="cert-name">Name (optional)</label>
          <input
            id="cert-name"
            value={name}
            maxLength={200}
            placeholder="the certificate's subject"
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </div>
        <label class="check full-row">
          <input
            type="checkbox"
            checked={makeDefault}
            onChange={(e) => setMakeDefault((e.target as HTMLInputElement).checked)}
          />{' '}
          Make it the default (what <code>sign: true</code> uses; the first one always is)
        </label>
        <button type="submit" class="primary full-row" disabled={!file || busy}>
          {busy ? 'Uploading…' : 'Upload certificate'}
        </button>
      </form>
      {added && (
        <p class="card" role="status">
          Stored <strong>{added.name}</strong>
          {added.isDefault ? ', the default' : ''}. Sign a render with{' '}
          <code>{`"options": { "sign": "${added.id}" }`}</code>
          {added.isDefault ? (
            <>
              {' '}
              or <code>{'"sign": true'}</code>
            </>
          ) : null}
          .
        </p>
      )}
      <ErrorText error={error} />
      {certs && certs.length === 0 && <p class="muted">No certificate yet: renders cannot be signed.</p>}
      {certs && certs.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Signing certificates</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Subject</th>
                <th scope="col">Valid until</th>
                <th scope="col">Fingerprint (SHA-256)</th>
                <th scope="col">Id</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {certs.map((c) => (
                <tr key={c.id}>
                  <td data-label="Name">
                    {/* one child: the narrow layout's cell grid keeps the badges beside the name */}
                    <span>
                      {c.name}
                      {c.isDefault && <span class="badge">default</span>}
                      {c.owner === 'operator' && <span class="badge">operator</span>}
                    </span>
                  </td>
                  <td data-label="Subject">
                    <span class="wrap">{c.subject}</span>
                    {c.issuer !== c.subject && <span class="muted wrap"> issued by {c.issuer}</span>}
                  </td>
                  <td data-label="Valid until">
                    {expired(c) ? (
                      <span class="danger-text">expired {formatDate(c.notAfter)}</span>
                    ) : (
                      formatDate(c.notAfter)
                    )}
                  </td>
                  <td data-label="Fingerprint">
                    <code class="wrap" title={c.fingerprint}>
                      {c.fingerprint.slice(0, 16)}…
                    </code>
                  </td>
                  <td data-label="Id">
                    <code>{c.id}</code>
                  </td>
                  <td data-label="">
                    {c.owner === 'operator' ? (
                      <span class="muted" title="The operator's certificate: only the operator can change it">
                        read-only
                      </span>
                    ) : (
                      <button type="button" class="danger" onClick={() => remove(c)}>
                        Delete
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
