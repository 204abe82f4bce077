// Markdown for chat messages: marked (GitHub flavour: tables, fenced code),
// highlight.js for code blocks, and DOMPurify over everything, so a model's
// output can never run script in the app. Code blocks get a header with the
// language and a copy button (wired up by Markdown.svelte).
import DOMPurify from 'dompurify';
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
import { Marked, type Tokens } from 'marked';

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

function makeParser(labels: MarkdownLabels): Marked {
  return new Marked({
    gfm: true,
    breaks: false,
    renderer: {
      code({ text, lang }: Tokens.Code): string {
        const name = (lang ?? '').trim().split(/\s+/)[0] ?? '';
        const body = highlight(text.replace(/\n$/, ''), name);
        const langLabel = name ? `<span class="code-lang">${escapeHTML(name)}</span>` : '<span class="code-lang"></span>';
        return (
          `<div class="code-block">` +
          `<div class="code-head">${langLabel}` +
          `<button type="button" class="code-copy" data-copy="" aria-label="${escapeHTML(labels.copyLabel)}">${escapeHTML(labels.copy)}</button>` +
          `</div>` +
          `<pre><code class="hljs${name ? ` language-${escapeHTML(name)}` : ''}">${body}</code></pre>` +
          `</div>`
        );
      },
    },
  });
}

let cached: { key: string; parser: Marked } | undefined;

const purifyConfig = {
  ADD_ATTR: ['data-copy', 'target'],
  FORBID_TAGS: ['style', 'form', 'input', 'textarea', 'select', 'iframe', 'object', 'embed'],
  FORBID_ATTR: ['style'],
};

/** renderMarkdown turns Markdown into sanitized HTML. */
export function renderMarkdown(src: string, labels: MarkdownLabels): string {
  const key = `${labels.copy}\u0000${labels.copyLabel}`;
  if (!cached || cached.key !== key) {
    cached = { key, parser: makeParser(labels) };
  }
  const html = cached.parser.parse(src, { async: false }) as string;
  return DOMPurify.sanitize(html, purifyConfig) as string;
}

/** sanitizeSnippet keeps only <mark> from a search snippet (already escaped by the backend). */
export function sanitizeSnippet(html: string): string {
  return DOMPurify.sanitize(html, { ALLOWED_TAGS: ['mark'], ALLOWED_ATTR: [] }) as string;
}
