// The case status workflow and closing resolutions, published as-is in the API documentation.
//
//   new ──▶ in_progress ⇄ on_hold
//    │          │            │
//    └──────────┴─────▶ closed ──(reopen)──▶ in_progress
//
// Closing needs a resolution; reopening clears it (the history keeps it).
import { AppError } from '../core/errors.js';

export const statuses = ['new', 'in_progress', 'on_hold', 'closed'] as const;
export type CaseStatus = (typeof statuses)[number];

export const resolutions = [
  'true_positive',
  'benign_true_positive',
  'false_positive',
  'duplicate',
  'inconclusive',
] as const;
export type Resolution = (typeof resolutions)[number];

export const transitions: Record<CaseStatus, readonly CaseStatus[]> = {
  new: ['in_progress', 'closed'],
  in_progress: ['on_hold', 'closed'],
  on_hold: ['in_progress', 'closed'],
  closed: ['in_progress'],
};

/** One line per status for the API documentation. */
export const workflowDescription = statuses
  .map((status) => `\`${status}\` → ${transitions[status].map((to) => `\`${to}\``).join(', ')}`)
  .join('; ');

export function checkTransition(from: CaseStatus, to: CaseStatus): void {
  if (from === to) return;
  if (!transitions[from].includes(to)) {
    throw new AppError(
      'invalid_status_transition',
      `a ${from} case cannot become ${to}; from ${from} it can become ${transitions[from].join(' or ')}`,
      {
        extensions: { field: 'status', from, to, allowed: transitions[from] },
      },
    );
  }
}
