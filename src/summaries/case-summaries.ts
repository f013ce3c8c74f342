// The summaries shown on cases: what the cases feature asks for (CaseSummaries) when it
// presents a page of cases, answered from the stored summaries with the stale check against
// each case as it is now. The composition root hands this to the case routes.
import type { CaseSummaries } from '../cases/case-context.js';
import type { SummaryView } from './summary-view.js';
import { basisOf, presentSummary } from './summary-view.js';
import { findSummaries } from './summary-store.js';

export const caseSummaries: CaseSummaries = {
  async shownOn(db, tenantId, cases) {
    const byCase = new Map(cases.map((item) => [item.row.id, item]));
    const shown = new Map<string, SummaryView>();
    for (const summary of await findSummaries(db, tenantId, [...byCase.keys()])) {
      const item = byCase.get(summary.case_id);
      if (item) shown.set(summary.case_id, presentSummary(summary, basisOf(item.row, item.devices)));
    }
    return shown;
  },
};
