// The report's escapes: Markdown prose and code spans that no text can break out of, HTML
// where every value is text, and which format an Accept header asks for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codeSpan, markdownText } from './case-report-markdown.js';
import { escapeHtml, html } from './case-report-html.js';
import { preferredReport } from './case-observable-routes.js';

test('prose: every inline mark escaped, nothing can open a block, one line', () => {
  assert.equal(markdownText('<script>alert(1)</script>'), '\\<script\\>alert(1)\\</script\\>');
  assert.equal(markdownText('[click](javascript:alert(1))'), '\\[click\\](javascript:alert(1))');
  assert.equal(
    markdownText('**bold** _it_ `code` ~~x~~ | a | &amp; $x$ ![i](u)'),
    '\\*\\*bold\\*\\* \\_it\\_ \\`code\\` \\~\\~x\\~\\~ \\| a \\| \\&amp; \\$x\\$ \\!\\[i\\](u)',
  );
  assert.equal(markdownText('# heading'), '\\# heading');
  assert.equal(markdownText('- item'), '\\- item');
  assert.equal(markdownText('1. item'), '1\\. item');
  assert.equal(markdownText('    indented code'), 'indented code');
  assert.equal(markdownText('line one\n# two\r\n> three'), 'line one \\# two \\> three');
  assert.equal(markdownText('203.0.113.44 and C:\\Windows'), '203.0.113.44 and C:\\\\Windows');
});

test('values: a code span longer than any backtick run inside, on one line', () => {
  assert.equal(codeSpan('203.0.113.44'), '`203.0.113.44`');
  assert.equal(codeSpan('a ` b'), '``a ` b``');
  assert.equal(codeSpan('`x`'), '`` `x` ``');
  assert.equal(codeSpan('line\n# two'), '`line # two`');
  assert.equal(codeSpan('  '), '*(empty)*');
});

test('HTML: values are text, escaped pieces are kept', () => {
  assert.equal(
    escapeHtml(`<img src=x onerror="a('b')">&`),
    '&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;',
  );
  const value = '<script>alert(1)</script>';
  assert.equal(html`<p>${value}</p>`.text, '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
  const list = html`<ul>
    ${['<a>', html`<li>${'&'}</li>`]}
  </ul>`;
  assert.equal(list.text.replace(/\s+/g, ''), '<ul>&lt;a&gt;<li>&amp;</li></ul>');
});

test('the format: HTML only when preferred to Markdown', () => {
  assert.equal(preferredReport('text/html,application/xhtml+xml,*/*;q=0.8'), 'html');
  assert.equal(preferredReport('text/markdown'), 'markdown');
  assert.equal(preferredReport('text/markdown;q=0.9, text/html'), 'html');
  assert.equal(preferredReport('text/html;q=0.5, text/markdown'), 'markdown');
  assert.equal(preferredReport('text/html;q=0'), 'markdown');
  assert.equal(preferredReport('*/*'), 'markdown');
  assert.equal(preferredReport(undefined), 'markdown');
});
