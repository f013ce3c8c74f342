// A case report as Markdown (CommonMark with GitHub's extensions), to attach to a ticket. Every
// text that comes from records, rules, analysts or a model goes through one of two escapes, so
// none of it can make Markdown or HTML structure:
//   - values (observables, evidence fields, changes) are code spans: a run of backticks longer
//     than any inside, newlines and control characters as spaces. Nothing in a code span is
//     read as Markdown, HTML or a link.
//   - prose (titles, host names, comments, the summary's text) is one line per line of
//     source: control characters as spaces, a backslash before every character CommonMark or
//     GitHub gives a meaning inside a line (\ ` * _ [ ] < > & | ~ $ ! { } #), and before a
//     line start that could open a block (- + = a number with . or ), leading spaces dropped).
// The renderer always starts the line itself (a heading, a list marker, a quote), so escaped text
// is never the start of a block.
import { parseInline, type Inline } from '../core/markdown-inline.js';
import type { CaseReport } from './case-report.js';

// eslint-disable-next-line no-control-regex -- control characters are what is replaced
const CONTROL = /[\u0000-\u001f\u007f]+/g;

/** Text within a line: every character with a meaning inside a line escaped. */
function escapeInline(text: string): string {
  return text.replace(CONTROL, ' ').replace(/[\\`*_[\]<>&|~$!{}#]/g, '\\$&');
}

/** The start of a line that could open a block (a list, a setext underline) made plain text. */
function plainStart(line: string): string {
  return line
    .trimStart()
    .replace(/^([-+=])/, '\\$1')
    .replace(/^(\d{1,9})([.)])(?=\s|$)/, '$1\\$2');
}

/** Prose on one line: inert whatever it holds. */
export function markdownText(text: string): string {
  return plainStart(escapeInline(text));
}

/** A value as a code span: shown literally. */
export function codeSpan(text: string): string {
  const flat = text.replace(CONTROL, ' ');
  if (flat.trim() === '') return '*(empty)*';
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  // CommonMark strips one space from each end when both have one: pad so what shows is the value.
  const pad = flat.startsWith('`') || flat.endsWith('`') || (flat.startsWith(' ') && flat.endsWith(' ')) ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** One line of the summary with its emphasis, code spans and citations kept, the text escaped. */
function inline(parts: Inline[]): string {
  return parts
    .map((part) => {
      switch (part.kind) {
        case 'text':
          return escapeInline(part.text);
        case 'code':
          return codeSpan(part.text);
        case 'citation':
          return `\\[${part.id}\\]`;
        case 'strong':
          return `**${inline(part.children)}**`;
        case 'em':
          return `*${inline(part.children)}*`;
      }
    })
    .join('');
}

/**
 * Sightline's Markdown (a summary section, a generated description) line by line: bullets stay
 * bullets, every other line is a paragraph of its own; emphasis, code spans and citations are
 * kept, the text escaped.
 */
function markdownLines(markdown: string): string[] {
  const lines: string[] = [];
  for (const line of markdown.split('\n').map((text) => text.trim())) {
    if (line === '') continue;
    const bullet = /^[-*] /.test(line);
    const body = plainStart(inline(parseInline(bullet ? line.slice(2) : line)));
    // A paragraph stands apart from what is around it; bullets follow each other.
    if (!bullet && lines.length > 0 && lines.at(-1) !== '') lines.push('');
    lines.push(bullet ? `- ${body}` : body);
    if (!bullet) lines.push('');
  }
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

const list = (items: string[]) => (items.length === 0 ? ['*(none)*'] : items);

function facts(report: CaseReport): string[] {
  const { detail, tenant } = report;
  const assignee = detail.assignee
    ? `${markdownText(detail.assignee.name)} (${markdownText(detail.assignee.email)})`
    : 'unassigned';
  return [
    `- **Tenant:** ${markdownText(tenant.name)} (${codeSpan(tenant.code_name)})`,
    `- **Status:** ${detail.status}${detail.resolution ? ` (${detail.resolution})` : ''}`,
    `- **Severity:** ${detail.severity}`,
    `- **Score:** ${detail.score}`,
    `- **Assignee:** ${assignee}`,
    `- **Devices:** ${detail.devices.map((device) => codeSpan(device.host_name)).join(', ') || 'none'}`,
    `- **Techniques:** ${detail.techniques.map((t) => `${t.id}${t.name ? ` ${markdownText(t.name)}` : ''}`).join(', ') || 'none'}`,
    `- **Tags:** ${detail.tags.map(codeSpan).join(', ') || 'none'}`,
    `- **Observations:** ${detail.observation_count}, from ${detail.first_observation_at} to ${detail.last_observation_at}`,
    `- **Created:** ${detail.created_at}; **updated:** ${detail.updated_at}${detail.closed_at ? `; **closed:** ${detail.closed_at}` : ''}`,
    `- **Case id:** ${codeSpan(detail.id)}, version ${detail.version}`,
  ];
}

function summary(report: CaseReport): string[] {
  const { summary: found } = report;
  if (!found)
    return [report.summaryUnavailable ? markdownText(report.summaryUnavailable) : '*No summary was generated.*'];
  const lines = [
    `> **${markdownText(found.notice)}**`,
    '',
    `Generated ${found.generated_at} by ${markdownText(`${found.provider} ${found.model}`)}${found.is_llm ? '' : ' (not a language model)'}${found.stale ? `; stale: ${found.stale_reasons.join(', ')}` : ''}.`,
  ];
  for (const section of found.sections)
    lines.push('', `### ${markdownText(section.heading)}`, '', ...markdownLines(section.markdown));
  return lines;
}

function timeline(report: CaseReport): string[] {
  const entries = report.timeline.entries.map((entry) => {
    const where = entry.host ? ` on ${codeSpan(entry.host)}` : '';
    if (entry.observation)
      return `- ${entry.time} **observation** ${markdownText(entry.observation.rule_title)} (${entry.observation.level})${where}`;
    if (entry.process)
      return `- ${entry.time} **process** ${codeSpan(entry.process.command_line ?? entry.process.executable_path ?? entry.process.name ?? '?')}${where}`;
    const to = `${entry.connection.destination_ip ?? '?'}:${entry.connection.destination_port ?? '?'}`;
    return `- ${entry.time} **connection** to ${codeSpan(to)}${where}`;
  });
  if (report.timeline.truncated) entries.push('- *(truncated)*');
  return list(entries);
}

function observations(report: CaseReport): string[] {
  const lines: string[] = [];
  report.detail.observations.forEach((observation, index) => {
    lines.push(
      '',
      `### ${index + 1}. ${markdownText(observation.rule.title)}`,
      '',
      `- **Level:** ${observation.level}; **source:** ${observation.source}; **id:** ${codeSpan(observation.id)}`,
      `- **Time:** ${observation.first_time} to ${observation.last_time}${observation.host ? `; **host:** ${codeSpan(observation.host)}` : ''}`,
      `- **Techniques:** ${observation.techniques.map((t) => t.id).join(', ') || 'none'}`,
    );
    for (const evidence of report.evidence.get(observation.id) ?? []) {
      lines.push(`- **Evidence**${evidence.recordId ? ` (record ${codeSpan(evidence.recordId)})` : ''}:`);
      for (const [name, value] of evidence.fields) lines.push(`  - ${codeSpan(name)}: ${codeSpan(value)}`);
    }
  });
  if (report.detail.observation_count > report.detail.observations.length)
    lines.push('', `*${report.detail.observation_count - report.detail.observations.length} more not shown.*`);
  return lines.length === 0 ? ['*(none)*'] : lines.slice(1);
}

function observables(report: CaseReport): string[] {
  return list(
    report.observables.map((item) => {
      const tags = item.tags.length > 0 ? ` [${item.tags.map(markdownText).join(', ')}]` : '';
      const spread = `; ${item.other_cases} other case${item.other_cases === 1 ? '' : 's'}, ${item.devices} device${item.devices === 1 ? '' : 's'}`;
      return `- ${item.type} ${codeSpan(item.value)}${tags} (${item.source}, first seen ${item.first_seen}${spread})`;
    }),
  );
}

function comments(report: CaseReport): string[] {
  const lines: string[] = [];
  for (const comment of report.comments) {
    lines.push('', `**${markdownText(comment.author)}**, ${comment.at}:`, '');
    for (const line of comment.body.split('\n')) lines.push(`> ${markdownText(line)}`);
  }
  return lines.length === 0 ? ['*(none)*'] : lines.slice(1);
}

function history(report: CaseReport): string[] {
  return list(
    report.history.map(
      (entry) =>
        `- ${entry.at} ${markdownText(entry.actor.label)} (${entry.actor.type}): **${markdownText(entry.action)}** ${codeSpan(JSON.stringify(entry.changes))}`,
    ),
  );
}

export function reportMarkdown(report: CaseReport): string {
  const { detail } = report;
  return [
    `# Case #${detail.number}: ${markdownText(detail.title)}`,
    '',
    ...facts(report),
    '',
    '## Description',
    '',
    ...list(markdownLines(detail.description)),
    '',
    '## AI summary',
    '',
    ...summary(report),
    '',
    '## Timeline',
    '',
    ...timeline(report),
    '',
    `## Observations (${detail.observation_count})`,
    '',
    ...observations(report),
    '',
    `## Observables (${report.observables.length})`,
    '',
    ...observables(report),
    '',
    '## Comments',
    '',
    ...comments(report),
    '',
    '## History',
    '',
    ...history(report),
    '',
  ].join('\n');
}
