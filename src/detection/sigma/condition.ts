// The condition language: identifiers of detection items, `and`, `or`, `not`, parentheses, and
// `1 of x*` / `any of x*` / `all of x*` / `1 of them` / `all of them`. Precedence, lowest first:
// or, and, not. Sigma 1 aggregations (`| count() by …`) are refused: correlations replace them.

export type ConditionNode =
  | { type: 'and' | 'or'; children: ConditionNode[] }
  | { type: 'not'; child: ConditionNode }
  | { type: 'ref'; name: string }
  | { type: 'of'; quantifier: 'all' | number; pattern: string };

export class ConditionError extends Error {}

interface Token {
  kind: 'word' | '(' | ')';
  text: string;
  at: number;
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s*(?:(\()|(\))|([^\s()|]+)|(\|)|(\S))/y;
  pattern.lastIndex = 0;
  while (pattern.lastIndex < text.length) {
    const at = pattern.lastIndex;
    const found = pattern.exec(text);
    if (!found) break;
    if (found[1]) tokens.push({ kind: '(', text: '(', at });
    else if (found[2]) tokens.push({ kind: ')', text: ')', at });
    else if (found[3]) tokens.push({ kind: 'word', text: found[3], at });
    else if (found[4])
      throw new ConditionError(
        `aggregation '${text.slice(found.index).trim()}' (Sigma 1) is not supported: write a correlation rule`,
      );
    else if (found[5]) throw new ConditionError(`unexpected '${found[5]}' at ${found.index}`);
    else break;
  }
  return tokens;
}

const KEYWORDS = new Set(['and', 'or', 'not', 'of']);

export function parseCondition(text: string): ConditionNode {
  const tokens = tokenize(text);
  let position = 0;
  const peek = () => tokens[position];
  const isWord = (word: string) => peek()?.kind === 'word' && peek()?.text.toLowerCase() === word;
  const fail = (what: string): never => {
    const token = peek();
    throw new ConditionError(token ? `${what} at '${token.text}' (offset ${token.at})` : `${what} at the end`);
  };

  const parseOr = (): ConditionNode => {
    const children = [parseAnd()];
    while (isWord('or')) {
      position++;
      children.push(parseAnd());
    }
    return children.length === 1 && children[0] ? children[0] : { type: 'or', children };
  };
  const parseAnd = (): ConditionNode => {
    const children = [parseNot()];
    while (isWord('and')) {
      position++;
      children.push(parseNot());
    }
    return children.length === 1 && children[0] ? children[0] : { type: 'and', children };
  };
  const parseNot = (): ConditionNode => {
    if (isWord('not')) {
      position++;
      return { type: 'not', child: parseNot() };
    }
    return parseAtom();
  };
  const parseAtom = (): ConditionNode => {
    const token = peek();
    if (!token) return fail('expected an identifier');
    if (token.kind === '(') {
      position++;
      const inner = parseOr();
      if (peek()?.kind !== ')') fail('expected )');
      position++;
      return inner;
    }
    if (token.kind === ')') return fail('unexpected )');
    const word = token.text.toLowerCase();
    const next = tokens[position + 1];
    if (next?.kind === 'word' && next.text.toLowerCase() === 'of') {
      const quantifier =
        word === 'all'
          ? 'all'
          : word === 'any'
            ? 1
            : /^[1-9]\d*$/.test(word)
              ? Number(word)
              : fail('expected 1, any or all before of');
      const target = tokens[position + 2];
      if (target?.kind !== 'word' || KEYWORDS.has(target.text.toLowerCase())) {
        position += 2;
        return fail('expected a name pattern or them after of');
      }
      position += 3;
      return { type: 'of', quantifier, pattern: target.text };
    }
    if (KEYWORDS.has(word)) return fail(`unexpected '${token.text}'`);
    position++;
    return { type: 'ref', name: token.text };
  };

  if (tokens.length === 0) throw new ConditionError('the condition is empty');
  const tree = parseOr();
  if (position < tokens.length) fail('unexpected text');
  return tree;
}

/** The detection names a `x*` pattern (or `them`) stands for; `them` skips names starting with `_`. */
export function resolveNames(pattern: string, names: readonly string[]): string[] {
  if (pattern === 'them') return names.filter((name) => !name.startsWith('_'));
  if (!pattern.includes('*')) return names.filter((name) => name === pattern);
  const regex = new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return names.filter((name) => regex.test(name));
}
