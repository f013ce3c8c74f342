// The small building blocks every page uses, so pages look and behave alike: buttons, badges,
// panels, loading / error / empty states, form fields.
import { Fragment, useState, type ButtonHTMLAttributes, type ReactNode } from 'react';
import { Link } from 'react-router';
import { errorMessage, ApiError } from '../api/client';
import { formatDateTime, formatRelative } from '../lib/format';

type Variant = 'primary' | 'secondary' | 'danger' | 'ghost';

export function Button({
  variant = 'secondary',
  small,
  className,
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant; small?: boolean }) {
  return (
    <button
      type="button"
      className={['btn', `btn-${variant}`, small ? 'btn-small' : '', className ?? ''].join(' ').trim()}
      {...rest}
    />
  );
}

/**
 * Asks for the newest data now, and says so while the answer is on its way: while `busy`, or,
 * when onRefresh returns a promise, until it settles. A page that also refreshes on a timer
 * passes the promise and no `busy`, so its background refreshes leave the button alone.
 */
export function RefreshButton({
  onRefresh,
  busy = false,
  label = 'Refresh',
  variant,
}: {
  onRefresh: () => unknown;
  busy?: boolean;
  label?: string;
  variant?: Variant;
}) {
  const [asked, setAsked] = useState(false);
  const refresh = () => {
    const result = onRefresh();
    if (result instanceof Promise) {
      setAsked(true);
      void result.finally(() => setAsked(false));
    }
  };
  const shown = busy || asked;
  return (
    <Button small variant={variant} onClick={refresh} disabled={shown}>
      {shown ? 'Refreshing…' : label}
    </Button>
  );
}

export type Tone = 'neutral' | 'info' | 'success' | 'warning' | 'danger' | 'critical' | 'accent';

export function Badge({ tone = 'neutral', children, title }: { tone?: Tone; children: ReactNode; title?: string }) {
  return (
    <span className={`badge badge-${tone}`} title={title}>
      {children}
    </span>
  );
}

export function Panel({
  title,
  actions,
  children,
  className,
}: {
  title?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <section className={`panel ${className ?? ''}`.trim()}>
      {(Boolean(title) || Boolean(actions)) && (
        <header className="panel-header">
          {title && <h2 className="panel-title">{title}</h2>}
          {actions && <div className="panel-actions">{actions}</div>}
        </header>
      )}
      <div className="panel-body">{children}</div>
    </section>
  );
}

/** A step of a breadcrumb: a plain label (a section) or a link (a list the page belongs to). */
export type Crumb = string | { label: string; to: string };

/** Where a page sits: "Settings › Integrations", or "Devices" linking back to the list. */
export function Breadcrumb({ trail }: { trail: Crumb[] }) {
  return (
    <nav className="breadcrumb" aria-label="Breadcrumb">
      {trail.map((crumb, i) => (
        <Fragment key={typeof crumb === 'string' ? crumb : crumb.to}>
          {i > 0 && <span aria-hidden="true"> › </span>}
          {typeof crumb === 'string' ? <span>{crumb}</span> : <Link to={crumb.to}>{crumb.label}</Link>}
        </Fragment>
      ))}
    </nav>
  );
}

export function PageHeader({
  title,
  subtitle,
  actions,
  trail,
}: {
  title: ReactNode;
  subtitle?: ReactNode;
  actions?: ReactNode;
  trail?: Crumb[];
}) {
  return (
    <header className="page-header">
      <div>
        {trail && <Breadcrumb trail={trail} />}
        <h1>{title}</h1>
        {subtitle && <p className="page-subtitle">{subtitle}</p>}
      </div>
      {actions && <div className="page-actions">{actions}</div>}
    </header>
  );
}

export function Spinner({ label = 'Loading' }: { label?: string }) {
  return <span className="spinner" role="status" aria-label={label} />;
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <div className="state state-loading" role="status" aria-live="polite">
      <Spinner label={what} /> <span>{what}…</span>
    </div>
  );
}

/** An error with what went wrong (the problem's detail and code) and a way to retry. */
export function ErrorState({
  error,
  retry,
  title = 'Could not load this',
}: {
  error: unknown;
  retry?: () => void;
  title?: string;
}) {
  const code = error instanceof ApiError ? error.code : undefined;
  return (
    <div className="state state-error" role="alert">
      <strong>{title}</strong>
      <p>
        {errorMessage(error)}
        {code && <code className="error-code">{code}</code>}
      </p>
      {retry && (
        <Button small onClick={retry}>
          Try again
        </Button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="state state-empty">{children}</div>;
}

/** A time shown relative ("5 minutes ago") with the exact local time on hover. */
export function Time({ iso, exact }: { iso: string | null | undefined; exact?: boolean }) {
  if (!iso) return <span className="muted">—</span>;
  return (
    <time dateTime={iso} title={`${formatDateTime(iso)} (${iso})`}>
      {exact ? formatDateTime(iso) : formatRelative(iso)}
    </time>
  );
}

/** A labelled control. The hint and the error sit outside the label, so they are not part of the control's name. */
export function Field({
  label,
  hint,
  children,
  error,
}: {
  label: string;
  hint?: ReactNode;
  children: ReactNode;
  error?: string | undefined;
}) {
  return (
    <div className="field">
      <label className="field-control">
        <span className="field-label">{label}</span>
        {children}
      </label>
      {hint && !error && <span className="field-hint">{hint}</span>}
      {error && <span className="field-error">{error}</span>}
    </div>
  );
}

export function Kbd({ children }: { children: ReactNode }) {
  return <kbd className="kbd">{children}</kbd>;
}

/** The keys a list or page answers to, as [keys, what] pairs; keys pressed together or in turn are separated by spaces ("j k"). */
export function KeyHints({ keys, className }: { keys: [string, string][]; className?: string }) {
  return (
    <p className={`list-hint ${className ?? ''}`.trim()}>
      {keys.map(([combo, what], i) => (
        <Fragment key={combo}>
          {i > 0 && ' · '}
          {combo.split(' ').map((key) => (
            <Kbd key={key}>{key}</Kbd>
          ))}{' '}
          {what}
        </Fragment>
      ))}
    </p>
  );
}

/** A labelled on/off switch (a checkbox with role switch, so it reads as one). */
export function Switch({
  label,
  checked,
  disabled,
  onChange,
  children,
}: {
  label: string;
  checked: boolean;
  disabled?: boolean;
  onChange: (next: boolean) => void;
  children?: ReactNode;
}) {
  return (
    <label className="switch">
      <input
        type="checkbox"
        role="switch"
        aria-label={label}
        checked={checked}
        disabled={disabled}
        onChange={(event) => onChange(event.target.checked)}
      />
      <span className="switch-track" aria-hidden="true" />
      {children && <span className="switch-text">{children}</span>}
    </label>
  );
}

/** A short message after an action, e.g. "Status changed"; errors read as alerts. */
export function Notice({
  tone = 'info',
  children,
}: {
  tone?: 'info' | 'success' | 'warning' | 'danger';
  children: ReactNode;
}) {
  return (
    <div className={`notice notice-${tone}`} role={tone === 'danger' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}
