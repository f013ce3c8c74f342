// Checks a model's answer before anyone sees it: the fixed sections must be there (missing ones
// are added, marked, and flagged; unknown ones dropped and flagged), and every cited observation
// must belong to the case (a line citing one that does not is dropped and flagged). The
// citations that remain are returned so the API can link them.
import { CITATION, SECTIONS, type SectionKey } from './sections.js';

export interface SummaryFlag {
  code: 'missing_section' | 'unknown_section' | 'unknown_citation' | 'empty_output';
  detail: string;
}

export interface CheckedSummary {
  text: string;
  sections: { key: SectionKey; heading: string; markdown: string }[];
  citations: string[];
  flags: SummaryFlag[];
}

const headingKey = new Map<string, SectionKey>(SECTIONS.map((section) => [section.heading.toLowerCase(), section.key]));

export function checkSummary(raw: string, caseObservationIds: ReadonlySet<string>): CheckedSummary {
  const flags: SummaryFlag[] = [];
  if (raw.trim() === '') flags.push({ code: 'empty_output', detail: 'the provider returned no text' });
  const bodies = new Map<SectionKey, string[]>();
  let current: SectionKey | null | undefined;
  const preamble: string[] = [];
  for (const line of raw.replace(/\r\n?/g, '\n').split('\n')) {
    const heading = /^#{1,3}\s+(.+?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const key = headingKey.get(heading.replace(/[*_:]/g, '').trim().toLowerCase());
      if (key === undefined) {
        flags.push({ code: 'unknown_section', detail: `dropped the section "${heading.slice(0, 80)}"` });
        current = null;
      } else {
        current = key;
        if (!bodies.has(key)) bodies.set(key, []);
      }
      continue;
    }
    const unknown = citedIds(line).filter((id) => !caseObservationIds.has(id));
    if (unknown.length > 0) {
      flags.push({
        code: 'unknown_citation',
        detail: `dropped a statement citing ${unknown.join(', ')}, which ${unknown.length === 1 ? 'is' : 'are'} not in the case`,
      });
      continue;
    }
    if (current === undefined) preamble.push(line);
    else if (current !== null) bodies.get(current)?.push(line);
  }
  const sections = SECTIONS.map((section) => {
    const lines = bodies.get(section.key);
    if (!lines) flags.push({ code: 'missing_section', detail: `the model wrote no "${section.heading}" section` });
    const markdown = lines ? lines.join('\n').trim() : '_Not written by the model._';
    return { key: section.key, heading: section.heading, markdown: markdown === '' ? '_Empty._' : markdown };
  });
  const intro = preamble.join('\n').trim();
  const text = [intro, ...sections.map((section) => `## ${section.heading}\n${section.markdown}`)]
    .filter((part) => part !== '')
    .join('\n\n');
  const citations = [...new Set(citedIds(text))];
  return { text, sections, citations, flags };
}

/** Inline code spans: quoted log text, where `[obs_…]` is data and never a citation. */
const CODE_SPAN = /`[^`\n]*`/g;

/** The observation ids a text cites, in order (outside code spans, as the UI renders them). */
function citedIds(text: string): string[] {
  return [...text.replace(CODE_SPAN, ' ').matchAll(CITATION)].flatMap((match) =>
    match[1] === undefined ? [] : [match[1]],
  );
}
