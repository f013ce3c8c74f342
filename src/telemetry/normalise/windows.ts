// Windows event logs (and Sysmon for Linux, which shares Sysmon's event ids and shapes) → the
// Sigma logsources they satisfy: {product} always; {product, service} for each service the
// pipeline's channel table names for the event's channel; {category} and {category, product}
// for the categories of its event id. Sysmon 1 and Security 4688 feed the process table,
// Sysmon 3 and Security 5156 the network table.
import type { LogSource } from './event.js';
import { freeze, productFromPath, type EndpointInfo } from './endpoint.js';
import { asInt, joinKeywords, type Fields } from './fields.js';
import type { ProcessingPipeline } from './pipeline.js';
import type { Recognised, Recogniser } from './recogniser.js';
import { categoriesOf, windowsKind } from './windows-events.js';
import { readWindowsHeader } from './windows-shapes.js';

const LINUX_CHANNEL = /^linux/i;

export function createWindowsRecogniser(pipeline: ProcessingPipeline): Recogniser {
  // Channel (lower case) → services, from the pipeline's service → channels table.
  const servicesByChannel = new Map<string, string[]>();
  for (const [service, channels] of Object.entries(pipeline.windows.channels)) {
    for (const channel of channels) {
      const list = servicesByChannel.get(channel) ?? [];
      list.push(service);
      servicesByChannel.set(channel, list);
    }
  }
  // The combinations are few (product × channel services × categories): built once, shared.
  const cache = new Map<string, LogSource[]>();
  const logsourcesFor = (product: string, services: readonly string[], categories: readonly string[]) => {
    const key = `${product}|${services.join(',')}|${categories.join(',')}`;
    let built = cache.get(key);
    if (built === undefined) {
      const list: LogSource[] = [{ product }];
      for (const service of services) list.push({ product, service });
      for (const category of categories) list.push({ category }, { category, product });
      built = freeze(list);
      cache.set(key, built);
    }
    return built;
  };

  return {
    name: 'windows',
    recognise(record, fields) {
      const header = readWindowsHeader(record, fields);
      if (header === undefined) return undefined;
      const kind = windowsKind(header.channel, header.provider);
      const product = LINUX_CHANNEL.test(header.channel)
        ? 'linux'
        : kind === 'sysmon' && !/microsoft-windows/i.test(header.channel)
          ? (productFromPath(fields.Image) ?? 'windows')
          : 'windows';
      const eventId = asInt(header.eventId);
      if (eventId !== null) fields.EventID = eventId;
      if (header.channel !== '' && fields.Channel === undefined) fields.Channel = header.channel;
      if (header.provider !== '' && fields.Provider_Name === undefined) fields.Provider_Name = header.provider;
      if (header.computer !== undefined && fields.Computer === undefined) fields.Computer = header.computer;

      const categories = categoriesOf(kind, eventId, fields);
      const channelKey = (header.channel === '' ? header.provider : header.channel).toLowerCase();
      const services = servicesByChannel.get(channelKey) ?? (kind === 'sysmon' ? ['sysmon'] : []);
      const recognised: Recognised = {
        family: 'windows',
        logsources: logsourcesFor(product, services, categories),
        keywords: keywordsOf(fields),
        host: header.computer ?? null,
      };
      const endpoint = endpointOf(kind, eventId, header.endpointId);
      if (endpoint !== undefined) {
        recognised.family = endpoint.kind;
        recognised.endpoint = endpoint;
      }
      return recognised;
    },
  };
}

function endpointOf(kind: string, eventId: number | null, endpointId: string | null): EndpointInfo | undefined {
  if (kind === 'sysmon' && eventId === 1) return { kind: 'process', format: 'sysmon', endpointId };
  if (kind === 'sysmon' && eventId === 3) return { kind: 'network', format: 'sysmon', endpointId };
  if (kind === 'security' && eventId === 4688) return { kind: 'process', format: 'windows_security', endpointId };
  if (kind === 'security' && eventId === 5156) return { kind: 'network', format: 'windows_security', endpointId };
  return undefined;
}

/**
 * Keyword rules search the rendered message and the event's own text (command line, script, the
 * unnamed values, one per line).
 */
function keywordsOf(fields: Fields): string {
  const data = fields.Data;
  const unnamed = Array.isArray(data) ? data.join('\n') : data;
  return joinKeywords([fields.Message, fields.message, fields.CommandLine, fields.ScriptBlockText, unnamed]);
}
