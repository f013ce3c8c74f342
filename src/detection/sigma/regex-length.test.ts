// The least length of a `|re` value's matches: exact for common shapes, 0 where the reading is
// unsure, and never more than a real match has (checked against the regex engine on random
// patterns and texts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { regexMinLength } from './regex-length.js';
import { pick, seededRandom } from '../../core/random.js';

test('regex length: atoms one each, quantifiers by their least repeat, alternatives by the shortest', () => {
  const cases: [string, number][] = [
    ['.{1000,}', 1000],
    ['abc', 3],
    ['a|bc', 1],
    ['(ab|c)d', 2],
    ['a?b*c+d{2,5}', 3],
    ['ab??c', 2],
    ['x{3}?', 3],
    ['[abc]{4}', 4],
    ['[^\\]]', 1],
    ['(?<n>xy){3}', 6],
    ['(?:a|)b', 1],
    ['\\\\[a-zA-Z0-9]{1,32}\\.[a-zA-Z0-9]{1,6}\\.[ "\']{1}', 6],
    // Assertions take no characters.
    ['^$', 0],
    ['\\bfoo\\b', 3],
    ['(?=ab)c', 1],
    ['(?<!x)y', 1],
    // Not read here: 0, so no text is skipped.
    ['\\x41{5}', 0],
    ['(a)\\1', 0],
    ['\\p{L}{3}', 0],
    ['a{b', 0],
    ['(?i)abc', 0],
  ];
  for (const [source, expected] of cases) assert.equal(regexMinLength(source), expected, source);
});

test('property: no match is shorter than the least length, over random patterns and texts', () => {
  const next = seededRandom(41);
  const ATOMS = ['a', 'b', '.', '\\d', '\\s', '[ab]', '[^a]', '\\.', '^', '$', '\\b', '(a|bb)', '(?:ab|)', '(?=a)'];
  const QUANTIFIERS = ['', '', '', '?', '*', '+', '{2}', '{1,3}', '{0,2}', '??', '+?', '{2,}'];
  const TEXT = ['a', 'b', 'ab', ' ', '1', '.', 'bb', 'x'];
  let matched = 0;
  for (let round = 0; round < 2_000; round++) {
    const pieces = Array.from({ length: 1 + Math.floor(next() * 4) }, () => {
      const atom = pick(next, ATOMS);
      // Assertions take no quantifier in JavaScript's unicode-less syntax either way; keep them bare.
      return ['^', '$', '\\b'].includes(atom) ? atom : atom + pick(next, QUANTIFIERS);
    });
    const source = next() < 0.2 ? `${pieces.join('')}|${pick(next, ATOMS)}` : pieces.join('');
    const least = regexMinLength(source);
    const regex = new RegExp(source, 'g');
    for (let sample = 0; sample < 10; sample++) {
      const text = Array.from({ length: Math.floor(next() * 8) }, () => pick(next, TEXT)).join('');
      for (const found of text.matchAll(regex)) {
        matched++;
        assert.ok(found[0].length >= least, `/${source}/ matched ${JSON.stringify(found[0])}, shorter than ${least}`);
      }
    }
  }
  assert.ok(matched > 1_000, `only ${matched} matches: the property checked little`);
});
