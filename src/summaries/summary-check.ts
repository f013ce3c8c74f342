// Checks a model's answer before anyone sees it: the fixed sections must be there (missing ones
// are added, marked, and flagged; unknown ones dropped and flagged), every cited observation and
// evidence row must belong to the case (a line citing one that does not is dropped and flagged),
// and a line citing evidence rows cites exactly the observations those rows support (others are
// removed, missing ones added, both flagged). The citations that remain are returned so the API
// can link them.
import { citationsIn } from '../core/markdown-inline.js';
import { SECTIONS, isEvidenceId, type SectionKey } from './sections.js';
import type { SummaryInput } from './summary-input.js';

export interface SummaryFlag {
  code: 'missing_section' | 'unknown_section' | 'unknown_citation' | 'corrected_citation' | 'empty_output';
  detail: string;
}

export interface CheckedSummary {
  text: string;
  sections: { key: SectionKey; heading: string; markdown: string }[];
  /** Observation and evidence ids, in order of first citation. */
  citations: string[];
  flags: SummaryFlag[];
}

/** What a summary may cite: the case's observations, and its evidence rows with the observations each supports. */
export interface CaseCitables {
  observations: ReadonlySet<string>;
  /** Evidence id → the observations whose triggering records it came from (empty: device activity only). */
  evidence: ReadonlyMap<string, ReadonlySet<string>>;
}

/** The citables of a model input: what the model was shown. */
export function evidenceIndex(input: SummaryInput): CaseCitables {
  const evidence = new Map<string, Set<string>>();
  for (const device of input.devices)
    for (const event of [...device.activity.process_events, ...device.activity.network_events])
      if (!evidence.has(event.id)) evidence.set(event.id, new Set());
  for (const observation of input.observations)
    for (const event of [...observation.evidence.process_events, ...observation.evidence.network_events]) {
      const supported = evidence.get(event.id) ?? new Set<string>();
      supported.add(observation.id);
      evidence.set(event.id, supported);
    }
  return { observations: new Set(input.observations.map((observation) => observation.id)), evidence };
}

const headingKey = new Map<string, SectionKey>(SECTIONS.map((section) => [section.heading.toLowerCase(), section.key]));

/** A line citing evidence rows, its observation citations made exactly the ones those rows support. */
function supportedLine(line: string, cited: readonly string[], known: CaseCitables, flags: SummaryFlag[]): string {
  const rows = cited.filter(isEvidenceId);
  if (rows.length === 0) return line;
  const supported = new Set(rows.flatMap((id) => [...(known.evidence.get(id) ?? [])]));
  const extra = [...new Set(cited.filter((id) => !isEvidenceId(id) && !supported.has(id)))];
  const missing = [...supported].filter((id) => !cited.includes(id)).sort();
  if (extra.length === 0 && missing.length === 0) return line;
  let fixed = line;
  for (const id of extra) fixed = fixed.split(`[${id}]`).join('');
  fixed = fixed.replace(/[ \t]{2,}/g, ' ').trimEnd();
  if (missing.length > 0) fixed = `${fixed} ${missing.map((id) => `[${id}]`).join(' ')}`;
  flags.push({
    code: 'corrected_citation',
    detail: [
      extra.length > 0 ? `removed ${extra.join(', ')}, which ${rows.join(', ')} do not support` : '',
      missing.length > 0 ? `added ${missing.join(', ')}, which ${rows.join(', ')} support` : '',
    ]
      .filter(Boolean)
      .join('; '),
  });
  return fixed;
}

export function checkSummary(raw: string, known: CaseCitables): CheckedSummary {
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
    const cited = citedIds(line);
    const unknown = cited.filter((id) => (isEvidenceId(id) ? !known.evidence.has(id) : !known.observations.has(id)));
    if (unknown.length > 0) {
      flags.push({
        code: 'unknown_citation',
        detail: `dropped a statement citing ${unknown.join(', ')}, which ${unknown.length === 1 ? 'is' : 'are'} not in the case`,
      });
      continue;
    }
    const checked = supportedLine(line, cited, known, flags);
    if (current === undefined) preamble.push(checked);
    else if (current !== null) bodies.get(current)?.push(checked);
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

/**
 * The ids a text cites, in order: what the UI shows as citations (core/markdown-inline.ts, which
 * it renders with), so a citation in quoted log text (a code span) is neither checked nor linked.
 */
export const citedIds = citationsIn;
