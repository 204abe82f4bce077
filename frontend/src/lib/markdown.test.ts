import { describe, expect, it } from 'vitest';
import { plainSnippet, renderMarkdown, sanitizeSnippet } from './markdown';

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

describe('renderMarkdown, second pass', () => {
  const html = (src: string) => renderMarkdown(src, labels);

  it('leaves math as placeholders for KaTeX, and prices as text', () => {
    const out = html('Euler $e^{i\\pi}$, \\(a+b\\), but $5 and $10.\n\n$$x^2$$\n');
    const doc = new DOMParser().parseFromString(out, 'text/html');
    const tex = Array.from(doc.querySelectorAll('.math[data-tex]'), (el) => [el.getAttribute('data-tex'), el.getAttribute('data-display')]);
    expect(tex).toEqual([
      ['e^{i\\pi}', 'false'],
      ['a+b', 'false'],
      ['x^2', 'true'],
    ]);
    expect(doc.body.textContent).toContain('$5 and $10');
  });

  it('draws task lists, footnotes and wraps tables', () => {
    const out = html('- [x] done\n- [ ] open\n\nA claim.[^1]\n\n[^1]: Its source.\n\n| a | b |\n| - | - |\n| 1 | 2 |\n');
    expect(out).toContain('class="task-box" data-checked="true"');
    expect(out).toContain('data-checked="false"');
    expect(out).toMatch(/<section[^>]*class="footnotes"/);
    expect(out).toContain('Its source.');
    expect(out).toContain('<div class="table-wrap"><table>');
  });

  it('keeps a Mermaid source whole (arrows and all) for the renderer', () => {
    const out = html('```mermaid\ngraph TD\n  A --> B\n```\n');
    const block = new DOMParser().parseFromString(out, 'text/html').querySelector<HTMLElement>('.mermaid-block');
    expect(decodeURIComponent(block?.dataset.mermaid ?? '')).toBe('graph TD\n  A --> B');
  });

  it('shows images from https and image data URLs only', () => {
    const out = html('![a](https://example.com/a.png) ![b](http://example.com/b.png) ![c](data:image/png;base64,iVBORw0KGgo=) ![d](/api/secret)');
    const srcs = Array.from(new DOMParser().parseFromString(out, 'text/html').querySelectorAll('img'), (i) => i.getAttribute('src'));
    expect(srcs).toEqual(['https://example.com/a.png', 'data:image/png;base64,iVBORw0KGgo=']);
    expect(out).toContain('referrerpolicy="no-referrer"');
  });
});

describe('plainSnippet', () => {
  it('drops the Markdown marks and keeps <mark>', () => {
    expect(plainSnippet('## Title with **bold** and `code`\n- item [link](https://x.y) <mark>hit</mark>')).toBe(
      'Title with bold and code item link <mark>hit</mark>',
    );
  });
});
