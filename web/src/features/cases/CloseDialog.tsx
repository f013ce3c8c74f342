// Closing a case needs a resolution (the API refuses a close without one) and may carry a
// closing comment, which the case keeps and its comments show.
import { useState } from 'react';
import { Dialog, DialogActions } from '../../components/Dialog';
import { ErrorState } from '../../components/ui';
import { resolutionHints, resolutionLabels, resolutions, type Resolution } from './types';

export function CloseDialog({
  title,
  pending,
  error,
  onSubmit,
  onClose,
}: {
  title: string;
  pending: boolean;
  error: unknown;
  onSubmit: (close: { resolution: Resolution; closing_comment?: string }) => void;
  onClose: () => void;
}) {
  const [resolution, setResolution] = useState<Resolution | null>(null);
  const [comment, setComment] = useState('');
  const submit = () => {
    if (!resolution) return;
    const text = comment.trim();
    onSubmit({ resolution, ...(text ? { closing_comment: text } : {}) });
  };
  return (
    <Dialog
      title={title}
      onClose={onClose}
      footer={
        <DialogActions
          onCancel={onClose}
          label={pending ? 'Closing…' : 'Close case'}
          disabled={!resolution || pending}
          onConfirm={submit}
        />
      }
    >
      <form
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        {Boolean(error) && <ErrorState error={error} title="The case was not closed" />}
        <fieldset className="resolution-choices">
          <legend className="field-label">Resolution (required)</legend>
          {resolutions.map((value) => (
            <label key={value} className="resolution-choice">
              <input
                type="radio"
                name="resolution"
                value={value}
                checked={resolution === value}
                onChange={() => setResolution(value)}
              />
              <span>
                <strong>{resolutionLabels[value]}</strong>
                <span className="muted"> — {resolutionHints[value]}</span>
              </span>
            </label>
          ))}
        </fieldset>
        <label className="field">
          <span className="field-label">Closing comment (optional)</span>
          <textarea
            rows={4}
            value={comment}
            maxLength={10_000}
            placeholder="What was found and done; kept on the case and added as a comment"
            onChange={(event) => setComment(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) submit();
            }}
          />
        </label>
      </form>
    </Dialog>
  );
}
