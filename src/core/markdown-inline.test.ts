// The inline parser the UI renders with and the summary check reads citations with: code spans
// by CommonMark's backtick rule, before bold and italics, and never holding a citation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { citationsIn, parseInline, type Inline } from './markdown-inline.js';

/** A compact spelling of the parse: text as is, `code`, {strong}, <em>, [citation]. */
function shape(parts: Inline[]): string {
  return parts
    .map((part) => {
      switch (part.kind) {
        case 'text':
          return part.text;
        case 'code':
          return `«${part.text}»`;
        case 'citation':
          return `@${part.id}`;
        case 'strong':
          return `{${shape(part.children)}}`;
        case 'em':
          return `<${shape(part.children)}>`;
      }
    })
    .join('|');
}

const parsed = (line: string) => shape(parseInline(line));

test('code spans bind tighter than bold: a citation inside one is quoted text', () => {
  assert.equal(parsed('**`**[obs_X]`'), '**|«**[obs_X]»');
  assert.deepEqual(citationsIn('**`**[obs_X]`'), []);
  assert.equal(parsed('**`**[obs_X]` '), '**|«**[obs_X]»| ');
  assert.equal(parsed('*`*[obs_X]`'), '*|«*[obs_X]»');
  assert.equal(parsed('_`_[obs_X]`'), '_|«_[obs_X]»');
  assert.equal(parsed('**run `whoami`** [obs_a1]'), '{run |«whoami»}| |@obs_a1');
  assert.equal(parsed('**`powershell.exe`**'), '{«powershell.exe»}');
});

test('a backtick string is closed only by one of the same length; unmatched ones are text', () => {
  assert.equal(parsed('`` a ` [obs_X] ``'), '«a ` [obs_X]»');
  assert.equal(parsed('``[obs_X]` [obs_a1]'), '``|@obs_X|` |@obs_a1');
  assert.equal(parsed('`[obs_X]`` [obs_a1]'), '`|@obs_X|`` |@obs_a1');
  assert.equal(parsed('` ``[obs_X]`` `'), '«``[obs_X]``»');
  assert.equal(parsed('```a`` b```[obs_a1]'), '«a`` b»|@obs_a1');
  assert.equal(parsed('`a` [obs_a1] `b`'), '«a»| |@obs_a1| |«b»');
  assert.equal(parsed('``'), '``');
  assert.equal(parsed('`  `'), '«  »', 'only spaces: kept');
  assert.equal(parsed('` a `'), '«a»');
  assert.equal(parsed('`  a `'), '« a»');
});

test('citations show wherever the text is not code: in bold, italics, next to code', () => {
  assert.deepEqual(citationsIn('**[obs_a1]** _[proc_12]_ *[net_3]* `x`[obs_b2]'), [
    'obs_a1',
    'proc_12',
    'net_3',
    'obs_b2',
  ]);
  assert.equal(parsed('*see [obs_a1]*'), '<see |@obs_a1>');
  assert.equal(parsed('_see [obs_a1]_'), '_see |@obs_a1|_', "an id's underscore closes no italics");
  assert.equal(parsed('[obs_a1][obs_b2]'), '@obs_a1|@obs_b2');
  assert.deepEqual(citationsIn('[obs_] [proc_x] [net_1a] [OBS_a1] [obs_a1 ]'), []);
  // Each line on its own: a code span does not run into the next line.
  assert.deepEqual(citationsIn('`a\n[obs_a1]`\r\n`[obs_b2]`'), ['obs_a1']);
});

test('text that holds the placeholder characters parses like any other', () => {
  const line = '\ue000`\ue000[obs_X]`\ue001 [obs_a1] \ue000';
  assert.equal(parsed(line), '\ue000|«\ue000[obs_X]»|\ue001 |@obs_a1| \ue000');
});

test('a long line of unmatched backticks parses in linear time', () => {
  const line = Array.from({ length: 400 }, (_, i) => '`'.repeat(i + 1)).join('x') + ' [obs_a1]';
  const started = performance.now();
  assert.deepEqual(citationsIn(line), ['obs_a1']);
  assert.ok(performance.now() - started < 1_000);
});
