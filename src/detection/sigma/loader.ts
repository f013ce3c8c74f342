// Loads Sigma rule files and directories (a SigmaHQ checkout works): every YAML document is a
// detection rule, a correlation rule or a meta filter. What compiles is returned; what does not
// is listed with the file, the construct and the reason — never skipped silently.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { applyFilter, compileFilter, compileRule, isMap, who, type CompiledFilter } from './compile.js';
import { compileCorrelation, type CompiledCorrelation } from './correlation.js';
import { RuleError } from './errors.js';
import type { ItemContext } from './item.js';
import type { CompiledRule, RejectedRule } from './types.js';

export interface RuleCompilation {
  rules: CompiledRule[];
  correlations: CompiledCorrelation[];
  /** How many (filter, rule) pairs were applied. */
  filters: number;
  rejected: RejectedRule[];
}

export interface LoadOptions {
  /** `expand` placeholders (the processing pipeline's). */
  placeholders?: ItemContext['placeholders'];
}

interface SourceDocument {
  file: string;
  doc: Record<string, unknown>;
}

/** Compiles every `.yml`/`.yaml` under the paths (files or directories, recursively, sorted). */
export function loadRuleDirectories(paths: readonly string[], options: LoadOptions = {}): RuleCompilation {
  const rejected: RejectedRule[] = [];
  const documents: SourceDocument[] = [];
  for (const root of paths) {
    for (const file of listRuleFiles(root, rejected))
      documents.push(...readDocuments(file, fs.readFileSync(file, 'utf8'), rejected));
  }
  return compileDocuments(documents, options, rejected);
}

/** Compiles rule text (one file's content): for tests and tools. */
export function compileRuleText(text: string, file = 'inline.yml', options: LoadOptions = {}): RuleCompilation {
  const rejected: RejectedRule[] = [];
  return compileDocuments(readDocuments(file, text, rejected), options, rejected);
}

function listRuleFiles(root: string, rejected: RejectedRule[]): string[] {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(root);
  } catch {
    rejected.push({ file: root, construct: 'path', message: `${root}: no such file or directory` });
    return [];
  }
  if (!stat.isDirectory()) return [root];
  const walk = (dir: string): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .flatMap((entry) => {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) return entry.name.startsWith('.') ? [] : walk(full);
        return /\.ya?ml$/i.test(entry.name) ? [full] : [];
      });
  return walk(root);
}

function readDocuments(file: string, text: string, rejected: RejectedRule[]): SourceDocument[] {
  const out: SourceDocument[] = [];
  for (const parsed of parseAllDocuments(text)) {
    if (parsed.errors.length > 0) {
      rejected.push({
        file,
        construct: 'yaml',
        message: `${file}: YAML: ${(parsed.errors[0]?.message ?? 'invalid').split('\n')[0]}`,
      });
      continue;
    }
    const doc: unknown = parsed.toJS({ maxAliasCount: 100 });
    if (doc === null || doc === undefined) continue;
    if (!isMap(doc)) {
      rejected.push({ file, construct: 'document', message: `${file}: a rule document must be a mapping` });
      continue;
    }
    out.push({ file, doc: withId(doc) });
  }
  return out;
}

/**
 * The spec makes `id` optional; observations, dedupe keys and correlation state need one. A
 * document without one gets `derived-` and a hash of its content: stable across restarts and
 * moves, new when the rule is edited. (A correlation with a `name` is keyed by it instead.)
 */
function withId(doc: Record<string, unknown>): Record<string, unknown> {
  if (typeof doc.id === 'string' && doc.id.trim() !== '') return doc;
  if (doc.correlation !== undefined && typeof doc.name === 'string' && doc.name.trim() !== '') return doc;
  if (doc.id !== undefined && doc.id !== null) return doc; // a wrong id is refused by the compiler, not replaced
  return { ...doc, id: `derived-${createHash('sha256').update(JSON.stringify(doc)).digest('hex').slice(0, 24)}` };
}

function compileDocuments(
  documents: SourceDocument[],
  options: LoadOptions,
  rejected: RejectedRule[],
): RuleCompilation {
  const context: ItemContext = { placeholders: options.placeholders ?? {} };
  const refuse = (error: unknown, file: string, doc: Record<string, unknown>) => {
    if (!(error instanceof RuleError)) throw error;
    rejected.push({ file, ...who(doc), construct: error.construct, message: error.message });
  };
  const detection: SourceDocument[] = [];
  const filters: SourceDocument[] = [];
  const correlations: SourceDocument[] = [];
  for (const entry of documents) {
    const { doc, file } = entry;
    if (doc.action !== undefined)
      refuse(
        new RuleError(
          file,
          'action',
          `'action: ${typeof doc.action === 'string' ? doc.action : JSON.stringify(doc.action)}' (Sigma 1 rule collections) is not supported: write each rule whole`,
          who(doc),
        ),
        file,
        doc,
      );
    else if (doc.correlation !== undefined) correlations.push(entry);
    else if (doc.filter !== undefined) filters.push(entry);
    else detection.push(entry);
  }

  let rules: CompiledRule[] = [];
  const ids = new Map<string, string>();
  for (const { doc, file } of detection) {
    try {
      const rule = compileRule(doc, file, context);
      const earlier = ids.get(rule.id);
      if (earlier !== undefined)
        throw new RuleError(file, 'id', `id ${rule.id} is already used by a rule in ${earlier}`, who(doc));
      ids.set(rule.id, file);
      rules.push(rule);
    } catch (error) {
      refuse(error, file, doc);
    }
  }

  const lookup = (list: readonly { id: string; name?: string }[]) => {
    const map = new Map<string, string>();
    for (const item of list) {
      map.set(item.id, item.id);
      if (item.name !== undefined) map.set(item.name, item.id);
    }
    return map;
  };

  let applied = 0;
  const ruleRefs = lookup(rules);
  for (const { doc, file } of filters) {
    try {
      const filter: CompiledFilter = compileFilter(doc, file, context);
      const targets = filter.rules.map((ref) => ({ ref, id: ruleRefs.get(ref) }));
      const unknown = targets.filter((target) => target.id === undefined).map((target) => target.ref);
      if (unknown.length > 0)
        throw new RuleError(
          file,
          'filter.rules',
          `the filter names rules that are not loaded: ${unknown.join(', ')}`,
          who(doc),
        );
      const wanted = new Set(targets.map((target) => target.id));
      rules = rules.map((rule) => (wanted.has(rule.id) ? applyFilter(rule, filter) : rule));
      applied += wanted.size;
    } catch (error) {
      refuse(error, file, doc);
    }
  }

  const correlationRefs = lookup(
    correlations.flatMap(({ doc }) =>
      typeof doc.id === 'string' ? [{ id: doc.id, name: typeof doc.name === 'string' ? doc.name : undefined }] : [],
    ),
  );
  const resolve = (ref: string): { id: string; kind: 'rule' | 'correlation' } | undefined => {
    const rule = ruleRefs.get(ref);
    if (rule !== undefined) return { id: rule, kind: 'rule' };
    const correlation = correlationRefs.get(ref);
    return correlation === undefined ? undefined : { id: correlation, kind: 'correlation' };
  };
  const compiledCorrelations: CompiledCorrelation[] = [];
  for (const { doc, file } of correlations) {
    try {
      const correlation = compileCorrelation(doc, file, resolve);
      if (ids.has(correlation.id))
        throw new RuleError(
          file,
          'id',
          `id ${correlation.id} is already used by a rule in ${ids.get(correlation.id)}`,
          who(doc),
        );
      ids.set(correlation.id, file);
      compiledCorrelations.push(correlation);
    } catch (error) {
      refuse(error, file, doc);
    }
  }
  return { rules, correlations: compiledCorrelations, filters: applied, rejected };
}
