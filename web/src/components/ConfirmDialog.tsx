// Asks before something that cannot be taken back (deleting a token or key, disabling a person):
// what will happen, Cancel, the one action in red, and the server's answer when it refuses.
import type { ReactNode } from 'react';
import { errorMessage } from '../api/client';
import { Dialog, DialogActions } from './Dialog';
import { Notice } from './ui';

export function ConfirmDialog({
  title,
  action,
  pendingAction,
  run,
  onClose,
  autoFocus,
  children,
}: {
  title: string;
  /** The button's label, e.g. "Delete token"... */
  action: string;
  /** ...and while the request is on its way, e.g. "Deleting…" (else the same label). */
  pendingAction?: string;
  /** The request (a TanStack mutation's state) and how to start it. */
  run: { isPending: boolean; error: unknown; start: () => void };
  onClose: () => void;
  autoFocus?: boolean;
  children: ReactNode;
}) {
  return (
    <Dialog
      title={title}
      onClose={onClose}
      footer={
        <DialogActions
          onCancel={onClose}
          label={run.isPending && pendingAction ? pendingAction : action}
          variant="danger"
          disabled={run.isPending}
          autoFocus={autoFocus}
          onConfirm={run.start}
        />
      }
    >
      {children}
      {Boolean(run.error) && <Notice tone="danger">{errorMessage(run.error)}</Notice>}
    </Dialog>
  );
}
