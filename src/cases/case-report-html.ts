// A case report as one self-contained HTML page, ready to print: its own styles (print rules
// included), no script, no external resource. The page is written with the `html` template
// below, which escapes every value it is given (& < > " ') unless the value is itself a piece
// of escaped HTML, so record text can only ever be text; the route adds a Content-Security-Policy
// that allows nothing but the page's own styles.
import { parseInline, type Inline } from '../core/markdown-inline.js';
import type { CaseReport } from './case-report.js';

/** Escaped HTML: the only thing the template inserts as it is. */
class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Part = Html | string | number | null | undefined | false | readonly Part[];

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char);
}

function render(part: Part): string {
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  if (part === null || part === undefined || part === false) return '';
  return escapeHtml(String(part));
}

/** Markup with every interpolated value escaped. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  return new Html(strings.reduce((out, text, i) => out + text + (i < values.length ? render(values[i]) : ''), ''));
}

const STYLE = `
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #111; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin: 0 0 .75rem; }
h2 { font-size: 1.2rem; border-bottom: 1px solid #ccc; padding-bottom: .2rem; margin-top: 2rem; }
h3 { font-size: 1rem; margin: 1.2rem 0 .4rem; }
code { font: 12.5px/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; background: #f3f3f3; padding: 0 .2em; border-radius: 3px; overflow-wrap: anywhere; white-space: pre-wrap; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
th, td { text-align: left; vertical-align: top; border-bottom: 1px solid #e3e3e3; padding: .25rem .5rem .25rem 0; }
th { width: 11rem; font-weight: 600; }
.notice { border: 1px solid #b58900; background: #fdf6e3; padding: .5rem .75rem; border-radius: 4px; }
.muted { color: #555; }
blockquote { margin: .25rem 0 .75rem; padding-left: .75rem; border-left: 3px solid #ccc; white-space: pre-wrap; }
ul { padding-left: 1.25rem; }
@page { margin: 18mm 15mm; }
@media print {
  body { margin: 0; max-width: none; font-size: 11pt; }
  h2 { break-after: avoid; }
  h3, tr, li, blockquote { break-inside: avoid; }
  code { background: none; }
}`;

function inline(parts: Inline[]): Html[] {
  return parts.map((part) => {
    switch (part.kind) {
      case 'text':
        return html`${part.text}`;
      case 'code':
        return html`<code>${part.text}</code>`;
      case 'citation':
        return html`[<code>${part.id}</code>]`;
      case 'strong':
        return html`<strong>${inline(part.children)}</strong>`;
      case 'em':
        return html`<em>${inline(part.children)}</em>`;
    }
  });
}

function summaryMarkdown(markdown: string): Html {
  const lines = markdown
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const bullets = lines.filter((line) => /^[-*] /.test(line));
  const paragraphs = lines.filter((line) => !/^[-*] /.test(line));
  return html`${paragraphs.map((line) => html`<p>${inline(parseInline(line))}</p>`)}${
    bullets.length > 0 &&
    html`<ul>
      ${bullets.map((line) => html`<li>${inline(parseInline(line.slice(2)))}</li>`)}
    </ul>`
  }`;
}

const none = html`<p class="muted">None.</p>`;

function facts(report: CaseReport): Html {
  const { detail, tenant } = report;
  const rows: [string, Part][] = [
    ['Tenant', html`${tenant.name} (<code>${tenant.code_name}</code>)`],
    ['Status', `${detail.status}${detail.resolution ? ` (${detail.resolution})` : ''}`],
    ['Severity', detail.severity],
    ['Score', detail.score],
    ['Assignee', detail.assignee ? `${detail.assignee.name} (${detail.assignee.email})` : 'unassigned'],
    ['Devices', detail.devices.map((device) => device.host_name).join(', ') || 'none'],
    ['Techniques', detail.techniques.map((t) => `${t.id}${t.name ? ` ${t.name}` : ''}`).join(', ') || 'none'],
    ['Tags', detail.tags.join(', ') || 'none'],
    [
      'Observations',
      `${detail.observation_count}, from ${detail.first_observation_at} to ${detail.last_observation_at}`,
    ],
    ['Created', detail.created_at],
    ['Updated', detail.updated_at],
    ['Closed', detail.closed_at ?? '—'],
    ['Case id', html`<code>${detail.id}</code>, version ${detail.version}`],
  ];
  return html`<table>
    ${rows.map(
      ([name, value]) =>
        html`<tr>
          <th>${name}</th>
          <td>${value}</td>
        </tr>`,
    )}
  </table>`;
}

function summary(report: CaseReport): Html {
  const found = report.summary;
  if (!found) return html`<p class="muted">${report.summaryUnavailable ?? 'No summary was generated.'}</p>`;
  const stale = found.stale ? `; stale: ${found.stale_reasons.join(', ')}` : '';
  return html`<p class="notice"><strong>${found.notice}</strong></p>
    <p class="muted">
      Generated ${found.generated_at} by ${found.provider}
      ${found.model}${found.is_llm ? '' : ' (not a language model)'}${stale}.
    </p>
    ${found.sections.map(
      (section) =>
        html`<h3>${section.heading}</h3>
          ${summaryMarkdown(section.markdown)}`,
    )}`;
}

function timeline(report: CaseReport): Html {
  if (report.timeline.entries.length === 0) return none;
  const rows = report.timeline.entries.map((entry) => {
    let what: Html;
    if (entry.observation)
      what = html`<strong>Observation</strong> ${entry.observation.rule_title} (${entry.observation.level})`;
    else if (entry.process)
      what = html`<strong>Process</strong>
        <code>${entry.process.command_line ?? entry.process.executable_path ?? entry.process.name ?? '?'}</code>`;
    else
      what = html`<strong>Connection</strong> to
        <code>${entry.connection.destination_ip ?? '?'}:${entry.connection.destination_port ?? '?'}</code>`;
    return html`<tr>
      <td>${entry.time}</td>
      <td>${entry.host ?? ''}</td>
      <td>${what}</td>
    </tr>`;
  });
  return html`<table>
      <tr>
        <th>Time</th>
        <th>Host</th>
        <th>What</th>
      </tr>
      ${rows}
    </table>
    ${report.timeline.truncated && html`<p class="muted">Truncated.</p>`}`;
}

function observations(report: CaseReport): Html {
  const { detail } = report;
  if (detail.observations.length === 0) return none;
  const more = detail.observation_count - detail.observations.length;
  return html`${detail.observations.map(
    (observation, index) =>
      html`<h3>${index + 1}. ${observation.rule.title}</h3>
        <table>
          <tr>
            <th>Level</th>
            <td>${observation.level} (${observation.source})</td>
          </tr>
          <tr>
            <th>Time</th>
            <td>${observation.first_time} to ${observation.last_time}</td>
          </tr>
          <tr>
            <th>Host</th>
            <td>${observation.host ?? '—'}</td>
          </tr>
          <tr>
            <th>Techniques</th>
            <td>${observation.techniques.map((t) => t.id).join(', ') || 'none'}</td>
          </tr>
          <tr>
            <th>Id</th>
            <td><code>${observation.id}</code></td>
          </tr>
          ${(report.evidence.get(observation.id) ?? []).map(
            (evidence) =>
              html`<tr>
                <th>Evidence${evidence.recordId && html` <code>${evidence.recordId}</code>`}</th>
                <td>
                  <ul>
                    ${evidence.fields.map(
                      ([name, value]) => html`<li><code>${name}</code>: <code>${value}</code></li>`,
                    )}
                  </ul>
                </td>
              </tr>`,
          )}
        </table>`,
  )}${more > 0 && html`<p class="muted">${more} more not shown.</p>`}`;
}

function observables(report: CaseReport): Html {
  if (report.observables.length === 0) return none;
  return html`<table>
    <tr>
      <th>Type</th>
      <th>Value</th>
      <th>Tags</th>
      <th>Source</th>
      <th>Elsewhere</th>
    </tr>
    ${report.observables.map(
      (item) =>
        html`<tr>
          <td>${item.type}</td>
          <td><code>${item.value}</code></td>
          <td>${item.tags.join(', ')}</td>
          <td>${item.source}, ${item.first_seen}</td>
          <td>${item.other_cases} other cases, ${item.devices} devices</td>
        </tr>`,
    )}
  </table>`;
}

function comments(report: CaseReport): Html {
  if (report.comments.length === 0) return none;
  return html`${report.comments.map(
    (comment) =>
      html`<p><strong>${comment.author}</strong>, ${comment.at}:</p>
        <blockquote>${comment.body}</blockquote>`,
  )}`;
}

function history(report: CaseReport): Html {
  if (report.history.length === 0) return none;
  return html`<table>
    <tr>
      <th>When</th>
      <th>Who</th>
      <th>What</th>
    </tr>
    ${report.history.map(
      (entry) =>
        html`<tr>
          <td>${entry.at}</td>
          <td>${entry.actor.label} (${entry.actor.type})</td>
          <td><strong>${entry.action}</strong> <code>${JSON.stringify(entry.changes)}</code></td>
        </tr>`,
    )}
  </table>`;
}

export function reportHtml(report: CaseReport): string {
  const { detail } = report;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Case #${detail.number}: ${detail.title}</title>
        <style>
          ${new Html(STYLE)}
        </style>
      </head>
      <body>
        <h1>Case #${detail.number}: ${detail.title}</h1>
        ${facts(report)}
        <h2>Description</h2>
        <blockquote>${detail.description}</blockquote>
        <h2>AI summary</h2>
        ${summary(report)}
        <h2>Timeline</h2>
        ${timeline(report)}
        <h2>Observations (${detail.observation_count})</h2>
        ${observations(report)}
        <h2>Observables (${report.observables.length})</h2>
        ${observables(report)}
        <h2>Comments</h2>
        ${comments(report)}
        <h2>History</h2>
        ${history(report)}
      </body>
    </html> `.text;
}
