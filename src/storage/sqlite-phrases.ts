// SQLite's full-text index keeps which records hold each word, not where (FTS5 detail=none,
// migration 0048): indexing costs about half as much, which lets the index keep up with
// sustained ingest. A phrase of several words ("10.0.0.1" is four: 10, 0, 0, 1) is then found
// in two steps: the index finds the records holding every word, and `sightline_phrase` keeps
// those where the words follow each other, reading the record text as FTS5's unicode61
// tokenizer does (letters, digits and private-use characters make words; everything else
// separates them; case and diacritics do not count).
import type SQLite from 'better-sqlite3';

/** The words of a text as the index holds them, lower-cased and without diacritics. */
export function searchWords(text: string): string[] {
  return fold(text)
    .split(/[^\p{L}\p{N}\p{Co}]+/u)
    .filter((word) => word !== '');
}

function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

const escape = (word: string) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Compiled phrase tests, by phrase: a search runs its phrase over every candidate record. */
const compiled = new Map<string, RegExp>();
const MAX_COMPILED = 256;

function phraseTest(words: string[], prefix: boolean): RegExp {
  const key = `${prefix ? '*' : ''}${words.join(' ')}`;
  let test = compiled.get(key);
  if (!test) {
    const body = words.map(escape).join('[^\\p{L}\\p{N}\\p{Co}]+');
    // A word boundary before the first word, and after the last unless it is a prefix.
    test = new RegExp(`(?<![\\p{L}\\p{N}\\p{Co}])${body}${prefix ? '' : '(?![\\p{L}\\p{N}\\p{Co}])'}`, 'u');
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(key, test);
  }
  return test;
}

/** Whether `text` holds the words one after another (the last as a prefix when `prefix`). */
export function holdsPhrase(text: string, words: string[], prefix: boolean): boolean {
  return phraseTest(words, prefix).test(fold(text));
}

/** Registers `sightline_phrase(text, words_json, prefix)` on a connection that searches. */
export function registerPhraseFunction(connection: SQLite.Database): void {
  connection.function('sightline_phrase', { deterministic: true }, (text: unknown, words: unknown, prefix: unknown) =>
    typeof text === 'string' && typeof words === 'string'
      ? Number(holdsPhrase(text, JSON.parse(words) as string[], prefix === 1))
      : 0,
  );
}

/** The FTS5 query for the words: each must occur (the last as a prefix when `prefix`). */
export function wordsQuery(words: string[], prefix: boolean): string {
  return words.map((word, i) => `"${word}"${prefix && i === words.length - 1 ? ' *' : ''}`).join(' AND ');
}
