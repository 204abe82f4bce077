// What an answer's HTML leaves for later: formulas (KaTeX) and Mermaid
// diagrams. Both libraries are loaded on first use only, each as a chunk of
// its own, so a chat without math or diagrams never downloads them.
// Diagrams are drawn once the answer is complete, not while it is still
// streaming (its source changes with every word).
import DOMPurify from 'dompurify';

type Katex = typeof import('katex');
type Mermaid = (typeof import('mermaid'))['default'];

let katexLoad: Promise<Katex> | undefined;
let mermaidLoad: Promise<Mermaid> | undefined;

function loadKatex(): Promise<Katex> {
  katexLoad ??= Promise.all([import('katex'), import('katex/dist/katex.min.css')]).then(([k]) => (k.default ?? k) as Katex);
  return katexLoad;
}

function loadMermaid(): Promise<Mermaid> {
  mermaidLoad ??= import('mermaid').then((m) => {
    const mermaid = m.default;
    mermaid.initialize({
      startOnLoad: false,
      securityLevel: 'strict',
      // SVG text labels, so the drawing needs no HTML inside the SVG.
      htmlLabels: false,
      flowchart: { htmlLabels: false },
      theme: document.documentElement.dataset.theme === 'dark' || (!document.documentElement.dataset.theme && matchMedia('(prefers-color-scheme: dark)').matches) ? 'dark' : 'default',
    });
    return mermaid;
  });
  return mermaidLoad;
}

/** renderMath typesets the formulas under root that are not typeset yet. */
export async function renderMath(root: HTMLElement): Promise<void> {
  const nodes = Array.from(root.querySelectorAll<HTMLElement>('.math[data-tex]:not([data-rendered])'));
  if (nodes.length === 0) {
    return;
  }
  const katex = await loadKatex();
  for (const el of nodes) {
    if (!el.isConnected || el.dataset.rendered) {
      continue;
    }
    const tex = el.dataset.tex ?? '';
    try {
      katex.render(tex, el, { displayMode: el.dataset.display === 'true', throwOnError: false, output: 'htmlAndMathml', trust: false });
      el.dataset.rendered = 'true';
    } catch {
      el.dataset.rendered = 'failed'; // the TeX stays as text
    }
  }
}

let diagramCount = 0;

async function drawDiagram(el: HTMLElement): Promise<void> {
  if (!el.isConnected || el.dataset.rendered) {
    return;
  }
  el.dataset.rendered = 'pending';
  try {
    const source = decodeURIComponent(el.dataset.mermaid ?? '');
    const mermaid = await loadMermaid();
    const { svg } = await mermaid.render(`mermaid-${++diagramCount}`, source);
    if (!el.isConnected) {
      return;
    }
    const figure = document.createElement('div');
    figure.className = 'mermaid-figure';
    figure.setAttribute('role', 'img');
    figure.setAttribute('aria-label', el.getAttribute('aria-label') ?? '');
    figure.innerHTML = DOMPurify.sanitize(svg, { USE_PROFILES: { svg: true, svgFilters: true } }) as string;
    el.prepend(figure);
    el.dataset.rendered = 'true';
  } catch (err) {
    // Not a diagram Mermaid can draw: the source stays, as code.
    console.warn('mermaid:', err);
    el.dataset.rendered = 'failed';
    document.querySelectorAll('[id^="dmermaid-"]').forEach((n) => n.remove()); // the error drawing Mermaid leaves behind
  }
}

/**
 * renderDiagrams draws the Mermaid diagrams under root that are not drawn
 * yet, one after the other; the returned function stops before the next.
 * (The chat shows a long session a page at a time, so this is bounded.)
 */
export function renderDiagrams(root: HTMLElement): () => void {
  const blocks = Array.from(root.querySelectorAll<HTMLElement>('.mermaid-block[data-mermaid]:not([data-rendered])'));
  let stopped = false;
  void (async () => {
    for (const b of blocks) {
      if (stopped) {
        return;
      }
      await drawDiagram(b);
    }
  })();
  return () => {
    stopped = true;
  };
}
