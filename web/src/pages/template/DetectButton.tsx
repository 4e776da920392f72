// "Detect missing fields" on a template's page: POST …/detect-fields adds what the form lacks as a new
// version; the detections are kept for review and the page reloads into the editor on them.
import { useState } from 'preact/hooks';
import { api, type Template } from '../../api.js';
import { ErrorText } from '../../components/Alert.js';
import { type Detection, storeReview } from './detection-review.js';

interface Detected {
  data: { detections: Detection[]; warnings: string[]; template: Template };
}

export function DetectButton(props: { template: Template; onDetected: () => void }) {
  const t = props.template;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [none, setNone] = useState<string | null>(null);
  const detect = async () => {
    setBusy(true);
    setError(null);
    setNone(null);
    try {
      const res = await api.send<Detected>('POST', `/templates/${encodeURIComponent(t.id)}/detect-fields`);
      const { detections, warnings, template } = res.data;
      if (detections.length === 0) {
        setNone(['Nothing was detected that the form does not already have.', ...warnings].join(' '));
        return;
      }
      storeReview({ templateId: t.id, version: template.version, detections, warnings });
      props.onDetected();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="detect-action">
      <button
        type="button"
        disabled={busy || t.isFrozen}
        title={
          t.isFrozen ? 'Unfreeze the template first' : 'Find boxes, lines and check boxes the form has no field for'
        }
        onClick={() => void detect()}
      >
        {busy ? 'Detecting…' : 'Detect missing fields'}
      </button>
      {none && (
        <p class="muted small" role="status">
          {none}
        </p>
      )}
      <ErrorText error={error} />
    </div>
  );
}
