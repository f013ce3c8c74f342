// A modal dialog on the native <dialog> element: focus is trapped, Escape closes it, the page
// behind is inert. Open it by rendering it; close it with onClose.
import { useEffect, useRef, type ReactNode } from 'react';
import { Button } from './ui';

export function Dialog({
  title,
  onClose,
  children,
  footer,
  wide,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      className={`dialog ${wide ? 'dialog-wide' : ''}`.trim()}
      aria-label={title}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <header className="dialog-header">
        <h2>{title}</h2>
        <button type="button" className="dialog-close" aria-label="Close" onClick={onClose}>
          ×
        </button>
      </header>
      <div className="dialog-body">{children}</div>
      {footer && <footer className="dialog-footer">{footer}</footer>}
    </dialog>
  );
}

/**
 * The usual footer: Cancel, then the dialog's one action, either submitting the dialog's form
 * (`form`: its id, so Enter in a field does the same) or a plain click (`onConfirm`).
 */
export function DialogActions({
  onCancel,
  label,
  variant = 'primary',
  disabled,
  autoFocus,
  ...action
}: {
  onCancel: () => void;
  label: ReactNode;
  variant?: 'primary' | 'danger';
  disabled?: boolean;
  autoFocus?: boolean;
} & ({ form: string } | { onConfirm: () => void })) {
  return (
    <>
      <Button onClick={onCancel}>Cancel</Button>
      <Button
        variant={variant}
        disabled={disabled}
        autoFocus={autoFocus}
        {...('form' in action ? { type: 'submit', form: action.form } : { onClick: action.onConfirm })}
      >
        {label}
      </Button>
    </>
  );
}
