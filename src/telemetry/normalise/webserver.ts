// Web-server access records (nginx-style fields, and their Apache and ECS variants)
// → the Sigma webserver taxonomy (`c-ip`, `cs-uri-query`, …) through the pipeline's table. The
// keyword text is the raw request line, user agent and referer, as keyword rules expect.
import type { LogSource } from './event.js';
import { freeze } from './endpoint.js';
import { applyMappings, firstPresent, joinKeywords, numbersWherePossible, type Fields } from './fields.js';
import type { ProcessingPipeline } from './pipeline.js';
import type { Recogniser } from './recogniser.js';

const NUMERIC_FIELDS = ['sc-status', 'sc-bytes'] as const;

export interface RequestLine {
  method: string;
  target: string;
  version: string | undefined;
}

/**
 * `METHOD SP target [SP HTTP/x]`, as servers log it; undefined for anything else (nginx logs TLS
 * or garbage sent to a plain port as the "request" too). Hand-parsed: it runs on every record.
 */
export function parseRequestLine(line: string): RequestLine | undefined {
  const first = line.indexOf(' ');
  if (first < 3 || first > 16) return undefined;
  for (let i = 0; i < first; i++) {
    const code = line.charCodeAt(i);
    if (code < 65 || code > 90) return undefined; // methods are upper-case letters
  }
  const last = line.lastIndexOf(' ');
  let target: string;
  let version: string | undefined;
  if (last > first && line.startsWith('HTTP/', last + 1)) {
    target = line.slice(first + 1, last);
    version = line.slice(last + 1);
  } else {
    target = line.slice(first + 1);
  }
  if (target === '') return undefined;
  return { method: line.slice(0, first), target, version };
}

export function createWebserverRecogniser(pipeline: ProcessingPipeline): Recogniser {
  const config = pipeline.webserver;
  const base = freeze([{ category: 'webserver' }]);
  // Each pattern with the logsources of its product (one shared, frozen list per product).
  const productPatterns: [string, LogSource[]][] = [];
  for (const [product, patterns] of Object.entries(config.products)) {
    const logsources = freeze([{ category: 'webserver' }, { category: 'webserver', product }]);
    for (const pattern of patterns) productPatterns.push([pattern, logsources]);
  }

  function productOf(fields: Fields): LogSource[] {
    for (const field of config.productFields) {
      const value = fields[field];
      if (typeof value !== 'string') continue;
      const lower = value.toLowerCase();
      for (const [pattern, logsources] of productPatterns) if (lower.includes(pattern)) return logsources;
    }
    return base;
  }

  return {
    name: 'webserver',
    recognise(_record, fields) {
      let requestText: string | undefined;
      for (const field of config.requestLine) {
        const value = fields[field];
        if (typeof value === 'string') {
          requestText = value;
          break;
        }
      }
      const request = requestText === undefined ? undefined : parseRequestLine(requestText);
      if (request === undefined && firstPresent(fields, config.recogniseAny) === undefined) return undefined;

      if (request !== undefined) {
        fillRequest(fields, request.method, request.target, request.version);
      }
      applyMappings(fields, config.fields);
      deriveUriParts(fields);
      numbersWherePossible(fields, NUMERIC_FIELDS);
      requestText ??= synthesiseRequestLine(fields);
      return {
        family: 'webserver',
        logsources: productOf(fields),
        keywords: joinKeywords([requestText, fields['cs-user-agent'], fields['cs-referer']]),
      };
    },
  };
}

/** The request line's parts, where the record does not already carry them under taxonomy names. */
function fillRequest(fields: Fields, method: string, target: string, version: string | undefined): void {
  if (fields['cs-method'] === undefined) fields['cs-method'] = method;
  if (fields['cs-uri'] === undefined) fields['cs-uri'] = target;
  if (version !== undefined && fields['cs-version'] === undefined) fields['cs-version'] = version;
  const mark = target.indexOf('?');
  if (fields['cs-uri-stem'] === undefined) fields['cs-uri-stem'] = mark === -1 ? target : target.slice(0, mark);
  if (mark !== -1 && fields['cs-uri-query'] === undefined) fields['cs-uri-query'] = target.slice(mark + 1);
}

/** Records with separate path and query fields, or only a full URI, get the other forms too. */
function deriveUriParts(fields: Fields): void {
  let query = fields['cs-uri-query'];
  // Apache's %q keeps the leading `?`; the taxonomy's query has none.
  if (typeof query === 'string' && query.startsWith('?')) fields['cs-uri-query'] = query = query.slice(1);
  const uri = fields['cs-uri'];
  if (typeof uri === 'string') {
    const mark = uri.indexOf('?');
    if (fields['cs-uri-stem'] === undefined) fields['cs-uri-stem'] = mark === -1 ? uri : uri.slice(0, mark);
    if (mark !== -1 && query === undefined) fields['cs-uri-query'] = uri.slice(mark + 1);
    return;
  }
  const stem = fields['cs-uri-stem'];
  if (typeof stem !== 'string') return;
  fields['cs-uri'] = typeof query === 'string' && query !== '' && query !== '-' ? `${stem}?${query}` : stem;
}

/** Keyword rules look for the request line; rebuild it when the record logs its parts apart. */
function synthesiseRequestLine(fields: Fields): string | undefined {
  const method = fields['cs-method'];
  const uri = fields['cs-uri'];
  if (typeof method !== 'string' || typeof uri !== 'string') return typeof uri === 'string' ? uri : undefined;
  const version = fields['cs-version'];
  return typeof version === 'string' ? `${method} ${uri} ${version}` : `${method} ${uri}`;
}
