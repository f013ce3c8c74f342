// Closing a case needs a resolution (the API refuses a close without one) and may carry a
// closing comment, which the case keeps and its comments show. With required tasks still open,
// the dialog names them and closes only when the analyst says why (a forced close, in the history).
import { useState } from 'react';
import { Dialog, DialogActions } from '../../components/Dialog';
import { ErrorState, Notice } from '../../components/ui';
import { resolutionHints, resolutionLabels, resolutions, type Resolution } from './types';

export interface CloseRequest {
  resolution: Resolution;
  closing_comment?: string;
  force?: boolean;
  force_reason?: string;
}

export function CloseDialog({
  title,
  openRequired,
  pending,
  error,
  onSubmit,
  onClose,
}: {
  title: string;
  /** Titles of the required tasks still open. */
  openRequired: string[];
  pending: boolean;
  error: unknown;
  onSubmit: (close: CloseRequest) => void;
  onClose: () => void;
}) {
  const [resolution, setResolution] = useState<Resolution | null>(null);
  const [comment, setComment] = useState('');
  const [reason, setReason] = useState('');
  const forced = openRequired.length > 0;
  const ready = resolution !== null && (!forced || reason.trim() !== '');
  const submit = () => {
    if (!resolution || !ready) return;
    const text = comment.trim();
    onSubmit({
      resolution,
      ...(text ? { closing_comment: text } : {}),
      ...(forced ? { force: true, force_reason: reason.trim() } : {}),
    });
  };
  return (
    <Dialog
      title={title}
      onClose={onClose}
      footer={
        <DialogActions
          onCancel={onClose}
          label={pending ? 'Closing…' : forced ? 'Close anyway' : 'Close case'}
          disabled={!ready || pending}
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
        {forced && (
          <Notice tone="warning">
            <strong>
              {openRequired.length === 1 ? 'A required task is' : `${openRequired.length} required tasks are`} still
              open:
            </strong>
            <ul>
              {openRequired.map((task) => (
                <li key={task}>{task}</li>
              ))}
            </ul>
            Finish them or mark them not applicable first, or say why the case closes without them.
          </Notice>
        )}
        {forced && (
          <label className="field">
            <span className="field-label">Why close with required tasks open (required)</span>
            <input value={reason} maxLength={1_000} onChange={(event) => setReason(event.target.value)} />
          </label>
        )}
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
