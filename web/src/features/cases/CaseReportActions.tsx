// The case report from the case page: the printable HTML page in a new tab (or saved as a file
// when the tenant travels in a header a link cannot send: operators), and the Markdown saved
// as a file to attach to a ticket.
import { useState } from 'react';
import { currentTenantHeader } from '../../api/client';
import { Button, ErrorState } from '../../components/ui';
import { downloadReport, reportPath } from './api';

export function CaseReportActions({ caseId, number }: { caseId: string; number: number }) {
  const [error, setError] = useState<unknown>(null);
  const save = (format: 'markdown' | 'html') => {
    setError(null);
    downloadReport(caseId, format, `case-${number}-report.${format === 'html' ? 'html' : 'md'}`).catch(setError);
  };
  const open = () => {
    if (currentTenantHeader()) save('html');
    else window.open(reportPath(caseId, 'html'), '_blank', 'noopener');
  };
  return (
    <div className="report-actions" role="group" aria-label="Case report">
      <Button onClick={open}>Printable report</Button>
      <Button variant="ghost" onClick={() => save('markdown')}>
        Download Markdown
      </Button>
      {Boolean(error) && <ErrorState error={error} title="The report could not be made" />}
    </div>
  );
}
