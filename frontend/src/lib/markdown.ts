// Markdown for chat messages: marked (GitHub flavour: tables, fenced code,
// task lists) with footnotes (marked-footnote) and math ($…$, $$…$$, \(…\),
// \[…\]), highlight.js for code blocks, and DOMPurify over everything, so a
// model's output can never run script in the app. Code blocks get a header
// with the language and a copy button, wide tables a box that scrolls
// sideways; math and Mermaid diagrams are left as placeholders that
// Markdown.svelte renders after loading KaTeX and Mermaid on demand (see
// richContent.ts), so neither weighs on the first page load.
import createDOMPurify, { type DOMPurify as Purifier } from 'dompurify';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { Marked, type MarkedExtension, type Tokens } from 'marked';
import markedFootnote from 'marked-footnote';

const languages = { bash, c, cpp, css, diff, go, java, javascript, json, markdown, python, rust, shell, sql, typescript, xml, yaml };
for (const [name, lang] of Object.entries(languages)) {
  hljs.registerLanguage(name, lang);
}
hljs.registerAliases(['sh', 'zsh', 'console'], { languageName: 'bash' });
hljs.registerAliases(['js', 'jsx', 'mjs'], { languageName: 'javascript' });
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' });
hljs.registerAliases(['html', 'svelte', 'vue'], { languageName: 'xml' });
hljs.registerAliases(['yml'], { languageName: 'yaml' });
hljs.registerAliases(['py'], { languageName: 'python' });
hljs.registerAliases(['rs'], { languageName: 'rust' });
hljs.registerAliases(['golang'], { languageName: 'go' });
hljs.registerAliases(['md'], { languageName: 'markdown' });

/** MarkdownLabels are the translated strings rendered into the HTML. */
export interface MarkdownLabels {
  copy: string;
  copyLabel: string;
  /** taskDone and taskOpen name a task list's ticked and unticked boxes. */
  taskDone?: string;
  taskOpen?: string;
  /** footnotes heads the footnotes (for screen readers); footnoteBack names the link back. */
  footnotes?: string;
  footnoteBack?: string;
  /** diagram names a Mermaid diagram's source while it is not drawn. */
  diagram?: string;
}

function escapeHTML(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}

/** highlight returns highlighted HTML for code (escaped plain text for unknown languages). */
export function highlight(code: string, lang: string): string {
  const name = lang.trim().toLowerCase();
  if (name && hljs.getLanguage(name)) {
    try {
      return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
    } catch {
      return escapeHTML(code);
    }
  }
  return escapeHTML(code);
}

// Math: $…$ and \(…\) inline, $$…$$ and \[…\] as a block. An inline $
// must hug its formula ($x$, not "$ 5"), and a closing $ followed by a
// digit is a price ("$5 and $10"), not math.
const inlineDollar = /^\$(?![\s$])((?:\\.|[^\\$\n])+?)(?<![\s\\])\$(?!\d)/;
const inlineParen = /^\\\(((?:\\[^)]|[^\\])+?)\\\)/;
const displayDollar = /^\$\$((?:\\.|[^\\$]|\$(?!\$))+?)\$\$/;
const displayBracket = /^\\\[((?:\\[^\]]|[^\\])+?)\\\]/;
const blockMath = /^(?:\$\$([\s\S]+?)\$\$|\\\[([\s\S]+?)\\\])[ \t]*(?:\n|$)/;

interface MathToken extends Tokens.Generic {
  type: 'mathInline' | 'mathBlock';
  text: string;
  display: boolean;
}

/** mathPlaceholder is the element KaTeX later renders the formula into. */
function mathPlaceholder(tex: string, display: boolean): string {
  const tag = display ? 'div' : 'span';
  return `<${tag} class="math${display ? ' display' : ''}" data-tex="${escapeHTML(tex)}" data-display="${display}">${escapeHTML(tex)}</${tag}>`;
}

function mathExtension(): MarkedExtension {
  return {
    extensions: [
      {
        name: 'mathBlock',
        level: 'block',
        start: (src: string) => src.match(/\$\$|\\\[/)?.index,
        tokenizer(src: string): MathToken | undefined {
          const m = blockMath.exec(src);
          if (m) {
            return { type: 'mathBlock', raw: m[0], text: (m[1] ?? m[2]).trim(), display: true };
          }
          return undefined;
        },
        renderer: (tok) => mathPlaceholder((tok as MathToken).text, true) + '\n',
      },
      {
        name: 'mathInline',
        level: 'inline',
        start: (src: string) => src.match(/\$|\\\(|\\\[/)?.index,
        tokenizer(src: string): MathToken | undefined {
          for (const [re, display] of [
            [displayDollar, true],
            [displayBracket, true],
            [inlineDollar, false],
            [inlineParen, false],
          ] as const) {
            const m = re.exec(src);
            if (m) {
              return { type: 'mathInline', raw: m[0], text: m[1].trim(), display };
            }
          }
          return undefined;
        },
        renderer: (tok) => mathPlaceholder((tok as MathToken).text, (tok as MathToken).display),
      },
    ],
  };
}

function makeParser(labels: MarkdownLabels): Marked {
  const parser = new Marked({
    gfm: true,
    breaks: false,
    renderer: {
      code({ text, lang }: Tokens.Code): string {
        const name = (lang ?? '').trim().split(/\s+/)[0] ?? '';
        const source = text.replace(/\n$/, '');
        const body = highlight(source, name);
        const langLabel = name ? `<span class="code-lang">${escapeHTML(name)}</span>` : '<span class="code-lang"></span>';
        const block =
          `<div class="code-block">` +
          `<div class="code-head">${langLabel}` +
          `<button type="button" class="code-copy" data-copy="" aria-label="${escapeHTML(labels.copyLabel)}">${escapeHTML(labels.copy)}</button>` +
          `</div>` +
          `<pre><code class="hljs${name ? ` language-${escapeHTML(name)}` : ''}">${body}</code></pre>` +
          `</div>`;
        if (name.toLowerCase() === 'mermaid') {
          // Drawn later (richContent.ts); until then, and when it cannot
          // be drawn, its source shows as code.
          // The source goes URI-encoded: DOMPurify drops attributes that
          // hold "-->", which nearly every flowchart does.
          return `<div class="mermaid-block" data-mermaid="${escapeHTML(encodeURIComponent(source))}" aria-label="${escapeHTML(labels.diagram ?? 'Diagram')}">${block}</div>`;
        }
        return block;
      },
      checkbox({ checked }: Tokens.Checkbox): string {
        const label = checked ? (labels.taskDone ?? 'Done') : (labels.taskOpen ?? 'To do');
        return `<span class="task-box" data-checked="${checked}" role="img" aria-label="${escapeHTML(label)}"></span> `;
      },
    },
    hooks: {
      // Wide tables scroll sideways in a box of their own, instead of
      // widening the whole chat.
      postprocess: (html: string) => html.replace(/<table>/g, '<div class="table-wrap"><table>').replace(/<\/table>/g, '</table></div>'),
    },
  });
  parser.use(
    markedFootnote({
      description: labels.footnotes ?? 'Footnotes',
      backRefLabel: labels.footnoteBack ?? 'Back to reference {0}',
      headingClass: 'visually-hidden',
    }),
  );
  parser.use(mathExtension());
  return parser;
}

let cached: { key: string; parser: Marked } | undefined;

/** imageSource says whether an answer may show an image from src: https, or an image data URL. */
export function imageSource(src: string): boolean {
  return /^https:\/\//i.test(src) || /^data:image\/(png|jpe?g|gif|webp|avif|bmp|svg\+xml);base64,[a-z0-9+/=\s]+$/i.test(src);
}

let purifier: Purifier | undefined;

/**
 * markdownPurifier is a DOMPurify of its own for answers: images only from
 * https and image data URLs (never from the app's own origin, which would
 * send the app's cookie, nor plain http), lazily loaded and without a
 * referrer.
 */
function markdownPurifier(): Purifier {
  if (purifier) {
    return purifier;
  }
  const p = createDOMPurify(window);
  p.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'IMG') {
      const src = node.getAttribute('src') ?? '';
      if (!imageSource(src)) {
        node.remove();
        return;
      }
      node.setAttribute('tabindex', '0'); // a click (or Enter) opens it large
      node.setAttribute('loading', 'lazy');
      node.setAttribute('referrerpolicy', 'no-referrer');
      node.setAttribute('decoding', 'async');
    }
  });
  purifier = p;
  return p;
}

const purifyConfig = {
  ADD_ATTR: ['data-copy', 'target', 'data-tex', 'data-display', 'data-mermaid', 'data-checked', 'data-footnote-ref', 'data-footnote-backref', 'data-footnotes'],
  FORBID_TAGS: ['style', 'form', 'input', 'textarea', 'select', 'iframe', 'object', 'embed'],
  FORBID_ATTR: ['style'],
};

/**
 * rendered keeps the HTML of the answers rendered last (oldest first), so
 * that a message scrolled back into view is not parsed and sanitized again.
 */
const rendered = new Map<string, string>();
const renderedMax = 1000; // a 1,000-turn session; a few MB of HTML at most

/**
 * renderMarkdown turns Markdown into sanitized HTML. Unless cache is false
 * (text still being streamed, which changes with every piece), the result
 * is kept for the next time the same text is shown with the same labels.
 */
export function renderMarkdown(src: string, labels: MarkdownLabels, { cache = true }: { cache?: boolean } = {}): string {
  const key = JSON.stringify(labels);
  if (!cached || cached.key !== key) {
    cached = { key, parser: makeParser(labels) };
    rendered.clear();
  }
  const hit = cache ? rendered.get(src) : undefined;
  if (hit !== undefined) {
    rendered.delete(src);
    rendered.set(src, hit);
    return hit;
  }
  const html = markdownPurifier().sanitize(cached.parser.parse(src, { async: false }) as string, purifyConfig) as string;
  if (cache) {
    rendered.set(src, html);
    if (rendered.size > renderedMax) {
      rendered.delete(rendered.keys().next().value as string);
    }
  }
  return html;
}

/** sanitizeSnippet keeps only <mark> from a search snippet (already escaped by the backend). */
export function sanitizeSnippet(html: string): string {
  return createDOMPurifyOnce().sanitize(html, { ALLOWED_TAGS: ['mark'], ALLOWED_ATTR: [] }) as string;
}

let plain: Purifier | undefined;

function createDOMPurifyOnce(): Purifier {
  plain ??= createDOMPurify(window);
  return plain;
}

/**
 * plainSnippet turns a search snippet (escaped text of a message, with
 * <mark> around matches) into what a person reads: sanitized, and without
 * the Markdown marks (fences, emphasis, headings, list and quote marks,
 * table pipes, link targets) the message was written in.
 */
export function plainSnippet(html: string): string {
  return sanitizeSnippet(html)
    .replace(/```[\w+-]*/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)\s]*\)?/g, '$1')
    .replace(/(\*\*|__|~~)/g, '')
    .replace(/(^|[\s(>])[*_](?=\S)([^*_\n]*?\S)[*_](?=[\s).,!?:;<]|$)/g, '$1$2')
    .replace(/`+/g, '')
    .replace(/(^|\n)[ \t]*#{1,6}[ \t]+/g, '$1')
    .replace(/(^|\n)[ \t]*(?:&gt;[ \t]?)+/g, '$1')
    .replace(/(^|\n)[ \t]*(?:[-*+]|\d+[.)])[ \t]+(?:\[[ xX]\][ \t]+)?/g, '$1')
    .replace(/[ \t]*\|[ \t]*(?:[-:]+[ \t]*\|[ \t]*)*/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
