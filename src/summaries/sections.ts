// The fixed sections of every summary, in order, as Markdown `## ` headings. Statements of
// evidence cite the observations they rest on as [obs_…] and the evidence rows as [proc_…]
// (a process event) or [net_…] (a connection); the API and UI turn those into links
// (core/markdown-inline.ts reads them).

export const SECTIONS = [
  { key: 'overview', heading: 'Overview' },
  { key: 'timeline', heading: 'Timeline' },
  { key: 'affected', heading: 'Affected devices and users' },
  { key: 'techniques', heading: 'Techniques' },
  { key: 'evidence', heading: 'Key evidence' },
  { key: 'next_steps', heading: 'Recommended next steps' },
] as const;

export type SectionKey = (typeof SECTIONS)[number]['key'];

/** Whether a cited id names an evidence row rather than an observation. */
export const isEvidenceId = (id: string) => id.startsWith('proc_') || id.startsWith('net_');

/** Shown with every summary: a model can be wrong, and the analyst decides. */
export const INACCURACY_NOTICE =
  'AI-generated summaries can be inaccurate or invented. Verify critical information against the case data before acting on it.';
