// A secret the server returns once (an API token, an ingest key): the warning, the value in a
// read-only field that selects itself on focus, and Copy.
import { useId } from 'react';
import { CopyButton } from '../../components/CopyButton';
import { Notice } from '../../components/ui';

export function SecretShownOnce({ what, label, value }: { what: string; label: string; value: string }) {
  const labelId = useId();
  return (
    <>
      <Notice tone="warning">
        <strong>Copy the {what} now.</strong> It cannot be shown again: Sightline keeps only a hash of it. If it is
        lost, delete it and create a new one.
      </Notice>
      <div className="field">
        <span className="field-label" id={labelId}>
          {label}
        </span>
        <div className="secret-row">
          <input
            type="text"
            readOnly
            value={value}
            aria-labelledby={labelId}
            onFocus={(event) => event.target.select()}
            spellCheck={false}
            autoComplete="off"
          />
          <CopyButton value={value} small={false} />
        </div>
      </div>
    </>
  );
}
