// The Markdown that case descriptions, comments and AI summaries are written in, rendered as
// React elements (never as HTML: the text holds log-derived strings an attacker chose). The
// subset those texts use: headings, bullet and numbered lists, fenced code, paragraphs, and
// within a line what src/core/markdown-inline.ts parses (code spans, bold, italics, citations);
// `[obs_…]`, `[proc_…]` and `[net_…]` citations become whatever `citation` renders (links into the
// observation timeline or the investigation timeline).
import { Fragment, type ReactNode } from 'react';
import { parseInline, type Inline } from '../../../../src/core/markdown-inline.js';

type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'list'; ordered: boolean; items: string[] }
  | { kind: 'code'; text: string }
  | { kind: 'paragraph'; lines: string[] };

const LIST_ITEM = /^\s*(?:([-*+])|(\d+)[.)])\s+(.*)$/;

function parseBlocks(source: string): Block[] {
  const blocks: Block[] = [];
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line === undefined || line.trim() === '') continue;
    if (line.trimStart().startsWith('```')) {
      const code: string[] = [];
      for (i++; i < lines.length; i++) {
        const codeLine = lines[i];
        if (codeLine === undefined || codeLine.trimStart().startsWith('```')) break;
        code.push(codeLine);
      }
      blocks.push({ kind: 'code', text: code.join('\n') });
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const [, hashes = '', text = ''] = heading;
      blocks.push({ kind: 'heading', level: hashes.length, text });
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const [, , number, text = ''] = item;
      const ordered = number !== undefined;
      const last = blocks[blocks.length - 1];
      if (last?.kind === 'list' && last.ordered === ordered && lines[i - 1]?.trim() !== '') last.items.push(text);
      else blocks.push({ kind: 'list', ordered, items: [text] });
      continue;
    }
    const last = blocks[blocks.length - 1];
    if (last?.kind === 'paragraph' && lines[i - 1]?.trim() !== '') last.lines.push(line);
    else blocks.push({ kind: 'paragraph', lines: [line] });
  }
  return blocks;
}

function renderParts(parts: Inline[], citation: ((id: string) => ReactNode) | undefined): ReactNode[] {
  return parts.map((part, index) => {
    switch (part.kind) {
      case 'text':
        return <Fragment key={index}>{part.text}</Fragment>;
      case 'code':
        return <code key={index}>{part.text}</code>;
      case 'citation':
        return <Fragment key={index}>{citation ? citation(part.id) : `[${part.id}]`}</Fragment>;
      case 'strong':
        return <strong key={index}>{renderParts(part.children, citation)}</strong>;
      case 'em':
        return <em key={index}>{renderParts(part.children, citation)}</em>;
    }
  });
}

/** A line's inline Markdown: the parser the summary check reads citations with, so both agree. */
const renderInline = (text: string, citation: ((id: string) => ReactNode) | undefined) =>
  renderParts(parseInline(text), citation);

export function Markdown({
  source,
  citation,
  headingOffset = 2,
  className,
}: {
  source: string;
  citation?: (id: string) => ReactNode;
  headingOffset?: number;
  className?: string;
}) {
  const blocks = parseBlocks(source);
  return (
    <div className={`markdown ${className ?? ''}`.trim()}>
      {blocks.map((block, index) => {
        switch (block.kind) {
          case 'heading': {
            const level = Math.min(6, block.level + headingOffset);
            const Tag = `h${level}` as 'h3';
            return <Tag key={index}>{renderInline(block.text, citation)}</Tag>;
          }
          case 'list': {
            const Tag = block.ordered ? 'ol' : 'ul';
            return (
              <Tag key={index}>
                {block.items.map((item, i) => (
                  <li key={i}>{renderInline(item, citation)}</li>
                ))}
              </Tag>
            );
          }
          case 'code':
            return (
              <pre key={index} className="record">
                {block.text}
              </pre>
            );
          case 'paragraph':
            return (
              <p key={index}>
                {block.lines.map((line, i) => (
                  <Fragment key={i}>
                    {i > 0 && <br />}
                    {renderInline(line, citation)}
                  </Fragment>
                ))}
              </p>
            );
        }
      })}
    </div>
  );
}
