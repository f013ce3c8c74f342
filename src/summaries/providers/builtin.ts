// The builtin summariser: writes the fixed sections from the structured input with no network
// and no model, the same text for the same input. It is the default on a fresh install and says
// plainly that it is not an LLM. Log-derived strings are quoted as code so they cannot pass for
// instructions or formatting.
import { ProviderError, type ProviderRequest, type ProviderResult, type SummaryProvider } from './provider.js';
import type { SummaryInput, SummaryNetworkEvent, SummaryObservation, SummaryProcessEvent } from '../summary-input.js';
import { levelRank } from '../../cases/case-score.js';

export const BUILTIN_MODEL = 'sightline-builtin-1';

/** Line breaks of any kind (a Markdown reader may honour more than \n) and other control characters. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const BREAKS_AND_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/**
 * Log-derived text as inline code: nothing in it can start a line, close the code span or be
 * read as a heading, link or citation — control characters and line breaks become a space and
 * backticks a quote mark (the summary check ignores citations inside code spans).
 */
export function quote(value: string | number | null | undefined, max = 160): string {
  if (value === null || value === undefined || value === '') return '–';
  const text = String(value).replace(BREAKS_AND_CONTROLS, ' ').replace(/`/g, "'");
  return `\`${text.length > max ? `${text.slice(0, max - 1)}…` : text}\``;
}

/**
 * A word from the catalogue or a rule (a level, a status, a technique's id, name or tactic): shown
 * as prose, so only characters that cannot form Markdown are kept.
 */
function plain(value: string): string {
  return value.replace(/[^\p{L}\p{N} .,'&/()-]+/gu, ' ').trim() || '–';
}

/** A number from a record, or its text quoted when the record held something else. */
function num(value: number | null | undefined): string {
  if (value === null || value === undefined) return '–';
  return Number.isSafeInteger(value) ? String(value) : quote(value);
}

const cite = (observations: readonly SummaryObservation[]) =>
  observations.map((observation) => `[${observation.id}]`).join(' ');
const utc = (time: string) => `${time.slice(0, 19).replace('T', ' ')} UTC`;

function overview(input: SummaryInput): string[] {
  const c = input.case;
  const hosts = input.devices.map((device) => quote(device.host_name));
  const top = [...input.observations].sort((a, b) => levelRank(b.level) - levelRank(a.level))[0];
  const lines = [
    `Case #${c.number} (${plain(c.status)}, score ${c.score}/100) for customer ${quote(input.customer.code_name)} holds ${c.observation_count} observation${c.observation_count === 1 ? '' : 's'}` +
      `${hosts.length > 0 ? ` on ${hosts.join(', ')}` : ''} between ${utc(c.first_observation_at)} and ${utc(c.last_observation_at)}.`,
  ];
  if (top) lines.push(`The most severe detection is ${quote(top.rule_title)} (${plain(top.level)}) ${cite([top])}.`);
  return lines;
}

function timeline(input: SummaryInput): string[] {
  const ordered = [...input.observations].sort((a, b) => a.first_time.localeCompare(b.first_time));
  const lines = ordered
    .slice(0, 20)
    .map(
      (observation) =>
        `- ${utc(observation.first_time)}: ${quote(observation.rule_title)} (${plain(observation.level)}) on ${quote(observation.host)} [${observation.id}]`,
    );
  if (ordered.length > 20) lines.push(`- … ${ordered.length - 20} more observations in the case data.`);
  return lines.length > 0 ? lines : ['- No observations are in the case data.'];
}

function affected(input: SummaryInput): string[] {
  if (input.devices.length === 0) return ['No device is named by the observations.'];
  return input.devices.map((device) => {
    const places = device.addresses
      .map(
        (address) =>
          `${quote(address.ip)} (${
            address.scope === 'public'
              ? [address.city, address.country]
                  .filter(Boolean)
                  .map((part) => quote(part))
                  .join(', ') || 'unknown location'
              : quote(address.scope)
          })`,
      )
      .join(', ');
    const related = input.observations.filter(
      (observation) => observation.host?.toLowerCase() === device.host_name.toLowerCase(),
    );
    return (
      `- ${quote(device.host_name)}${device.host_description ? `, described as ${quote(device.host_description)}` : ''}; ` +
      `last user ${quote(device.user)}; endpoint ${quote(device.endpoint_id)}${places ? `; addresses ${places}` : ''}${related.length > 0 ? ` ${cite(related.slice(0, 5))}` : ''}`
    );
  });
}

function techniques(input: SummaryInput): string[] {
  if (input.case.techniques.length === 0) return ['No MITRE ATT&CK technique is tagged on the observations.'];
  return input.case.techniques.map((technique) => {
    const related = input.observations.filter((observation) =>
      observation.techniques.some((id) => id === technique.id || id.startsWith(`${technique.id}.`)),
    );
    return `- ${plain(technique.id)}${technique.name ? ` ${plain(technique.name)}` : ''}${technique.tactics.length > 0 ? ` (${technique.tactics.map(plain).join(', ')})` : ''} ${cite(related.slice(0, 5))}`.trimEnd();
  });
}

type Event = SummaryProcessEvent | SummaryNetworkEvent;

function eventText(event: Event): string {
  if ('command_line' in event)
    return `Process ${quote(event.process_name)} (PID ${num(event.pid)}) run by ${quote(event.user)} on ${quote(event.host)}: ${quote(event.command_line ?? event.executable_path, 200)}, parent ${quote(event.parent_process_name)}`;
  return `Connection by ${quote(event.process_name)} on ${quote(event.host)}: ${quote(event.source_ip)}:${num(event.source_port)} → ${quote(event.destination_hostname ?? event.destination_ip)}:${num(event.destination_port)}${event.protocol ? ` ${quote(event.protocol, 20)}` : ''}`;
}

/** Only characters a citation may hold: an id from a record that is not one is never cited. */
const citable = (id: string) => /^(?:proc|net)_[0-9]{1,15}$/.test(id);

/**
 * One point per evidence row, oldest first, citing the row and exactly the observations whose
 * triggering records it is; without any, the devices' activity near them, citing only the row.
 */
function evidence(input: SummaryInput): string[] {
  const rows = new Map<string, { event: Event; observations: string[] }>();
  for (const observation of input.observations) {
    for (const event of [...observation.evidence.process_events, ...observation.evidence.network_events]) {
      if (!citable(event.id)) continue;
      const row = rows.get(event.id) ?? { event, observations: [] };
      if (!row.observations.includes(observation.id)) row.observations.push(observation.id);
      rows.set(event.id, row);
    }
  }
  const ordered = [...rows.entries()].sort(
    ([a, x], [b, y]) => x.event.time.localeCompare(y.event.time) || a.localeCompare(b),
  );
  const lines = ordered
    .slice(0, 15)
    .map(([id, row]) => `- ${eventText(row.event)} [${id}] ${row.observations.map((o) => `[${o}]`).join(' ')}`);
  if (ordered.length > 15) lines.push(`- … ${ordered.length - 15} more evidence rows in the case data.`);
  if (lines.length > 0) return lines;
  const activity = input.devices
    .flatMap((device) => [...device.activity.process_events, ...device.activity.network_events])
    .filter((event) => citable(event.id))
    .sort((a, b) => a.time.localeCompare(b.time) || a.id.localeCompare(b.id))
    .slice(0, 5);
  if (activity.length === 0)
    return ["- The observations carry no endpoint process or network events; see each observation's records."];
  return [
    '- The observations carry no endpoint process or network events of their own. Near them, the devices show (context, not evidence of a detection):',
    ...activity.map((event) => `- ${eventText(event)} [${event.id}]`),
  ];
}

function nextSteps(input: SummaryInput): string[] {
  const steps: string[] = [];
  const high = input.observations.some((observation) => levelRank(observation.level) >= levelRank('high'));
  const tactics = new Set(
    input.case.techniques.flatMap((technique) => technique.tactics.map((tactic) => tactic.toLowerCase())),
  );
  if (high) steps.push('- Confirm whether the activity was authorised; if not, isolate the affected devices.');
  if (input.observations.some((observation) => observation.evidence.network_events.length > 0))
    steps.push(
      '- Block or investigate the remote addresses in the key evidence and look for the same destinations on other devices.',
    );
  if (tactics.has('credential access') || tactics.has('initial access'))
    steps.push('- Reset the credentials of the users involved and review sign-ins from the addresses seen.');
  if (tactics.has('persistence') || tactics.has('execution'))
    steps.push('- Look for persistence (cron, services, web shells, new accounts) on the devices and remove it.');
  steps.push('- Record the outcome on the case and close it with a resolution.');
  return steps;
}

export function builtinSummary(input: SummaryInput): string {
  return [
    "_Written by Sightline's builtin summariser from the case data (not a language model)._",
    '',
    '## Overview',
    ...overview(input),
    '',
    '## Timeline',
    ...timeline(input),
    '',
    '## Affected devices and users',
    ...affected(input),
    '',
    '## Techniques',
    ...techniques(input),
    '',
    '## Key evidence',
    ...evidence(input),
    '',
    '## Recommended next steps',
    ...nextSteps(input),
  ].join('\n');
}

export class BuiltinProvider implements SummaryProvider {
  readonly name = 'builtin' as const;
  readonly model = BUILTIN_MODEL;
  readonly isLlm = false;

  generate(request: ProviderRequest): Promise<ProviderResult> {
    // Callers check isLlm first; reaching here without case input is a bug upstream.
    if (!request.input)
      return Promise.reject(new ProviderError('error', 'The builtin summariser writes only case summaries.'));
    const text = builtinSummary(request.input);
    // No tokenizer: a character count / 4 is the usual estimate, reported so the figures stay comparable.
    return Promise.resolve({
      text,
      inputTokens: Math.ceil((request.system.length + request.user.length) / 4),
      outputTokens: Math.ceil(text.length / 4),
      model: BUILTIN_MODEL,
    });
  }
}
