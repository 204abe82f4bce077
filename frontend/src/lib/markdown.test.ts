import { describe, expect, it } from 'vitest';
import { renderMarkdown, sanitizeSnippet } from './markdown';

const labels = { copy: 'Copy', copyLabel: 'Copy code' };

describe('renderMarkdown', () => {
  it('renders code blocks with highlighting and a copy button', () => {
    const html = renderMarkdown('```go\nfunc main() {}\n```', labels);
    const doc = new DOMParser().parseFromString(html, 'text/html');
    expect(doc.querySelector('.code-lang')?.textContent).toBe('go');
    expect(doc.querySelector('button[data-copy]')?.getAttribute('aria-label')).toBe('Copy code');
    expect(doc.querySelector('code .hljs-keyword')?.textContent).toBe('func');
  });

  it('renders tables', () => {
    const html = renderMarkdown('| a | b |\n|---|---|\n| 1 | 2 |', labels);
    const doc = new DOMParser().parseFromString(html, 'text/html');
    expect(Array.from(doc.querySelectorAll('td'), (td) => td.textContent)).toEqual(['1', '2']);
  });

  it('removes script and event handlers', () => {
    const html = renderMarkdown('hi <script>alert(1)</script><img src=x onerror="alert(2)"> [x](javascript:alert(3))', labels);
    expect(html).not.toContain('<script');
    expect(html).not.toContain('onerror');
    expect(html).not.toContain('javascript:');
  });

  it('escapes code in unknown languages', () => {
    const html = renderMarkdown('```weird\n<b>x</b>\n```', labels);
    expect(html).toContain('&lt;b&gt;x&lt;/b&gt;');
  });
});

describe('sanitizeSnippet', () => {
  it('keeps <mark> and nothing else', () => {
    expect(sanitizeSnippet('a <mark>b</mark> <img src=x onerror=alert(1)><b>c</b>')).toBe('a <mark>b</mark> c');
  });
});
