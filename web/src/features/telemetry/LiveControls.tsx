// The live-tail switch and its state: off, live (following new records), or paused (new
// records wait above the list until resumed), with why it paused and how many are waiting.
import { Button } from '../../components/ui';
import { errorMessage } from '../../api/client';
import { formatNumber } from '../../lib/format';

export type PauseReason = 'manual' | 'scrolled' | 'expanded' | null;

const reasons: Record<Exclude<PauseReason, null>, string> = {
  manual: 'paused',
  scrolled: 'paused while you scroll — back to the top resumes',
  expanded: 'paused while a record is open',
};

export function LiveToggle({
  live,
  available,
  onChange,
}: {
  live: boolean;
  available: boolean;
  onChange: (live: boolean) => void;
}) {
  return (
    <Button
      aria-pressed={live}
      variant={live ? 'primary' : 'secondary'}
      disabled={!available && !live}
      title={
        available
          ? 'Stream new matching records as they arrive'
          : 'Live tail follows a relative range (Last …); pick one to use it'
      }
      onClick={() => onChange(!live)}
    >
      {live ? '■ ' : '▶ '}Live tail
    </Button>
  );
}

export function LiveStatus({
  live,
  pause,
  waiting,
  error,
  onPause,
  onResume,
}: {
  live: boolean;
  pause: PauseReason;
  waiting: number;
  error: unknown;
  onPause: () => void;
  onResume: () => void;
}) {
  if (!live) return null;
  return (
    <div className={`live-bar ${pause ? 'is-paused' : 'is-live'}`}>
      <span className="live-state" role="status" aria-live="polite" data-state={pause ? 'paused' : 'live'}>
        <span className="live-dot" aria-hidden="true" />
        {pause ? (
          <>
            <strong>Paused</strong> · {reasons[pause]}
            {waiting > 0 && ` · ${formatNumber(waiting)} new record${waiting === 1 ? '' : 's'} waiting`}
          </>
        ) : (
          <>
            <strong>Live</strong> · new matching records appear at the top
          </>
        )}
      </span>
      {error ? (
        <span className="field-error" role="alert">
          Live tail: {errorMessage(error)} (retrying)
        </span>
      ) : null}
      <span className="live-actions">
        {pause ? (
          <Button small variant="primary" onClick={onResume}>
            Resume{waiting > 0 ? ` (${formatNumber(waiting)})` : ''}
          </Button>
        ) : (
          <Button small onClick={onPause}>
            Pause
          </Button>
        )}
      </span>
    </div>
  );
}
