// Browser benchmarks of the UI (issue 15, "Benchmarks"), measured and
// reported, never asserted: this is not part of the test suite.
//
//  1. First page: `tinyelf serve` started on a fresh data folder (seeded
//     with the fake provider and a workspace), then Chromium navigates to
//     it; reported are the time from the process's start to the page being
//     interactive (the composer enabled and taking the focus), and from the
//     navigation's start to the first contentful paint and to interactive.
//     A fresh server and browser context per run; medians over the runs.
//  2. A 2,000-message session (1,000 turns of a user message and a Markdown
//     answer, some with code blocks, lists and tables), seeded with
//     `tinyelf sessions import` of a generated JSON export. Reported are the
//     time from clicking it in the sidebar to its last message rendered, and
//     the frame times while it is scrolled from top to bottom by a fixed
//     number of pixels per animation frame, recorded with
//     requestAnimationFrame, with the main thread's long tasks from a Chrome
//     trace (browser.startTracing) beside them.
//
// Run with: node e2e/bench.mjs   (from frontend/, after npm run build)
// scripts/bench-ui.sh does both. Environment: BENCH_RUNS (first-page runs,
// default 7), BENCH_OPEN_RUNS (session opens, default 3), BENCH_SCROLL_RUNS
// (default 2), BENCH_MESSAGES (default 2000), BENCH_SCROLL_STEP (pixels per
// frame, default 100). Results go to artifacts/bench-ui/results.json, the
// traces and the servers' logs beside them.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { cleanEnv, goBuild, Proc as HarnessProc } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const artifacts = path.join(root, 'artifacts', 'bench-ui');

/** Proc is a child process logging into artifacts/bench-ui/, polled often (the timings read its output). */
class Proc extends HarnessProc {
  constructor(name, cmd, args, env) {
    super(name, cmd, args, env, { logDir: artifacts, pollMs: 5 });
  }
}
const chromiumPath = process.env.TINYELF_E2E_CHROMIUM || '/usr/bin/chromium';

const firstPageRuns = Number(process.env.BENCH_RUNS || 7);
const openRuns = Number(process.env.BENCH_OPEN_RUNS || 3);
const scrollRuns = Number(process.env.BENCH_SCROLL_RUNS || 2);
const messageCount = Number(process.env.BENCH_MESSAGES || 2000);
const scrollStep = Number(process.env.BENCH_SCROLL_STEP || 100);

// The same flags as the e2e (run.mjs): no sandbox as root, no GPU, no
// background traffic.
const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--lang=en-US',
];

const viewport = { width: 1280, height: 800 };
const sessionTitle = 'Bench: a long session';
const endMarker = 'END-OF-BENCH-SESSION';

/** A started child process with its output collected in a log file. */
/**
 * answerText is the i-th assistant answer: a few paragraphs of Markdown,
 * with a code block every 4th answer, a list every 3rd and a table every
 * 10th, so that the list is not all plain text.
 */
function answerText(i) {
  const parts = [
    `Answer ${i}: the parser indexes the first token without checking the length, so an empty input panics. ` +
      'The fix is a guard before the index, and a test for the empty case. '.repeat(2),
  ];
  if (i % 3 === 0) {
    parts.push('- read `parser.go`\n- add the guard\n- run `go test ./...`');
  }
  if (i % 4 === 0) {
    parts.push(
      '```go\nfunc parse(tokens []Token) (*Node, error) {\n\tif len(tokens) == 0 {\n\t\treturn nil, ErrEmpty\n\t}\n\treturn parseExpr(tokens)\n}\n```',
    );
  }
  if (i % 10 === 0) {
    parts.push('| file | change |\n| --- | --- |\n| parser.go | guard |\n| parser_test.go | empty case |');
  }
  parts.push('Tell me if you want me to look at the lexer as well.');
  return parts.join('\n\n');
}

/**
 * sessionExport is a JSON export (backend/sessions/export.go) of a session
 * of n messages: n/2 turns of a user message and an answer with its usage.
 * The last answer carries endMarker.
 */
function sessionExport(n, workspace) {
  const t0 = Date.parse('2026-11-01T09:00:00Z');
  const events = [];
  const add = (type, data) => events.push({ seq: events.length + 1, type, time: new Date(t0 + events.length * 1000).toISOString(), data });
  add('session.created', { title: sessionTitle, workspace, mode: 'default', provider: 'Fake model', model: 'test-model' });
  const turns = Math.ceil(n / 2);
  for (let i = 1; i <= turns; i++) {
    add('turn.start', { mode: 'default' });
    add('user.message', { text: `Question ${i}: why do the tests fail on empty input in parser.go? Please look and explain.` });
    const usage = { model: 'test-model', inputTokens: 1200 + i, outputTokens: 300 };
    const text = i === turns ? `${answerText(i)}\n\n${endMarker}` : answerText(i);
    add('assistant.message', { text, model: 'test-model', stopReason: 'end_turn', usage });
    add('usage', usage);
    add('turn.end', { reason: 'done', iterations: 1 });
  }
  return { format: 'tinyelf.session', version: 2, session: { id: '', title: sessionTitle }, events };
}

/** seedData makes a data folder with the fake provider and a workspace. */
function seedData(dir, llmURL) {
  const home = path.join(dir, 'home');
  const workspace = path.join(home, 'projects', 'demo');
  const data = path.join(dir, 'data');
  fs.mkdirSync(workspace, { recursive: true });
  fs.mkdirSync(data, { recursive: true });
  fs.writeFileSync(path.join(workspace, 'README.md'), '# demo\n');
  const settings = {
    version: 1,
    providers: [{ name: 'Fake model', kind: 'openai', preset: 'custom', baseUrl: llmURL, model: 'test-model' }],
    defaultProvider: 'Fake model',
    lastWorkspace: workspace,
  };
  fs.writeFileSync(path.join(data, 'settings.json'), JSON.stringify(settings, null, 2));
  return { home, workspace, data };
}

function serveEnv({ data, home }) {
  return cleanEnv({ TINYELF_HOME: data, HOME: home, LANG: 'en_US.UTF-8' });
}

async function startServe(name, bin, folders) {
  const started = performance.now();
  const serve = new Proc(name, bin, ['serve', '--addr', '127.0.0.1:0'], serveEnv(folders));
  const [, url] = await serve.waitFor(/(http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)\r?\n/);
  return { serve, url, started, listening: performance.now() };
}

async function newPage(browser) {
  const context = await browser.newContext({ viewport, locale: 'en-US', colorScheme: 'light' });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
  page.on('pageerror', (err) => errors.push(String(err)));
  return { context, page, errors };
}

/**
 * waitInteractive waits, checking on every animation frame, until the
 * composer is enabled and takes the focus; it returns the page's clock then
 * (ms since the navigation started) and the first contentful paint.
 */
async function waitInteractive(page) {
  const handle = await page.waitForFunction(
    () => {
      const box = document.querySelector('#composer-input');
      if (!box || box.disabled || box.offsetParent === null) {
        return false;
      }
      box.focus();
      if (document.activeElement !== box) {
        return false;
      }
      return performance.now();
    },
    null,
    { polling: 'raf', timeout: 60_000 },
  );
  const interactive = await handle.jsonValue();
  // The paint entry can be queued a frame or two after the paint.
  const fcp = await page
    .waitForFunction(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? false, null, { polling: 'raf', timeout: 5000 })
    .then((h) => h.jsonValue())
    .catch(() => null);
  return { interactive, fcp };
}

/** median, percentile and friends over an array of numbers. */
function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) {
    return NaN;
  }
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1));
  return s[i];
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ms = (x) => (x == null || Number.isNaN(x) ? '—' : `${x.toFixed(1)} ms`);

function loadAverage() {
  return os.loadavg().map((x) => x.toFixed(2));
}

async function benchFirstPage(browser, bin, llmURL, tmp) {
  const runs = [];
  for (let i = 0; i < firstPageRuns; i++) {
    const folders = seedData(path.join(tmp, `first-${i}`), llmURL);
    // The browser context is made first: it is the browser's cost, not the app's.
    const { context, page, errors } = await newPage(browser);
    const { serve, url, started, listening } = await startServe(`first-${i}-serve`, bin, folders);
    try {
      const navStarted = performance.now();
      await page.goto(url, { waitUntil: 'commit' });
      const { interactive, fcp } = await waitInteractive(page);
      // The page's clock starts at its navigation; navStarted is a little
      // before that on ours, so launch-to-interactive is an upper bound.
      const run = {
        serveListeningMs: listening - started,
        launchToInteractiveMs: navStarted - started + interactive,
        navToFcpMs: fcp,
        navToInteractiveMs: interactive,
        errors,
      };
      runs.push(run);
      console.log(`first page ${i + 1}/${firstPageRuns}: serve listening ${ms(run.serveListeningMs)}, FCP ${ms(fcp)}, interactive ${ms(interactive)}, launch to interactive ${ms(run.launchToInteractiveMs)}`);
    } finally {
      await context.close();
      await serve.stop();
    }
  }
  const col = (k) => runs.map((r) => r[k]).filter((x) => x != null);
  return {
    runs,
    median: {
      serveListeningMs: median(col('serveListeningMs')),
      navToFcpMs: median(col('navToFcpMs')),
      navToInteractiveMs: median(col('navToInteractiveMs')),
      launchToInteractiveMs: median(col('launchToInteractiveMs')),
    },
    range: {
      navToInteractiveMs: [Math.min(...col('navToInteractiveMs')), Math.max(...col('navToInteractiveMs'))],
      launchToInteractiveMs: [Math.min(...col('launchToInteractiveMs')), Math.max(...col('launchToInteractiveMs'))],
    },
  };
}

/**
 * openLongSession clicks the session in the sidebar (from inside the page,
 * so the click's time is the page's) and waits, on every animation frame,
 * until its last message is in the DOM, then for the next frame (so it has
 * been painted). Returns the times from the click, in ms.
 */
async function openLongSession(page) {
  await page.getByRole('navigation', { name: 'Sessions' }).getByText(sessionTitle).waitFor();
  const started = await page.evaluate((title) => {
    const btn = [...document.querySelectorAll('nav button')].find((b) => b.textContent.includes(title));
    const t = performance.now();
    btn.click();
    return t;
  }, sessionTitle);
  const handle = await page.waitForFunction(
    (marker) => {
      const msgs = document.querySelectorAll('.messages [data-seq]');
      const last = msgs[msgs.length - 1];
      if (!last || !last.textContent.includes(marker)) {
        return false;
      }
      return performance.now();
    },
    endMarker,
    { polling: 'raf', timeout: 120_000 },
  );
  const inDOM = await handle.jsonValue();
  const painted = await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(performance.now()))));
  const facts = await page.evaluate(() => {
    const scroller = document.querySelector('.scroller');
    return {
      rows: document.querySelectorAll('.messages > *').length,
      seqRows: document.querySelectorAll('.messages [data-seq]').length,
      domNodes: document.getElementsByTagName('*').length,
      scrollHeight: scroller?.scrollHeight ?? 0,
      clientHeight: scroller?.clientHeight ?? 0,
      atBottom: scroller ? scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 2 : false,
    };
  });
  // What the backend's part is: the same GetSession call the UI makes, timed again from the page.
  const api = await page.evaluate(async (title) => {
    const token = new URLSearchParams(window.location.search).get('token');
    const post = (m, a) =>
      fetch(`/api/call/${m}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, body: JSON.stringify(a) });
    const list = (await (await post('ListSessions', {})).json()).result ?? [];
    const id = /session=([\w-]+)/.exec(window.location.hash)?.[1] ?? list.find((x) => x.title === title)?.id;
    const t = performance.now();
    const res = await post('GetSession', { id });
    const body = await res.text();
    return { ms: performance.now() - t, bytes: body.length };
  }, sessionTitle);
  return { clickToLastInDOMMs: inDOM - started, clickToLastPaintedMs: painted - started, getSessionMs: api.ms, getSessionBytes: api.bytes, ...facts };
}

/**
 * scrollThrough moves the message list by step pixels on every animation
 * frame, recording the time between frames: first up from the bottom (where
 * a session opens) until the top with every row shown (the list adds
 * earlier rows as it nears its top: the "earlier" button is gone and the
 * row count has stopped growing), then down to the bottom again.
 */
async function scrollThrough(page, step) {
  return page.evaluate(
    (px) =>
      new Promise((resolve) => {
        const scroller = document.querySelector('.scroller');
        const rowCount = () => scroller.querySelectorAll('[data-seq]').length;
        const out = { up: [], down: [] };
        let dir = 'up';
        let settle = 10;
        let still = 0;
        let rowsBefore = rowCount();
        let last = 0;
        const started = performance.now();
        const tick = (now) => {
          if (settle > 0) {
            settle -= 1;
            last = now;
            requestAnimationFrame(tick);
            return;
          }
          out[dir].push(now - last);
          last = now;
          const max = scroller.scrollHeight - scroller.clientHeight;
          if (dir === 'up') {
            const n = rowCount();
            still = scroller.scrollTop <= 0 && n === rowsBefore && !scroller.querySelector('.earlier') ? still + 1 : 0;
            rowsBefore = n;
            if (still >= 10) {
              out.upMs = performance.now() - started;
              out.rows = n;
              dir = 'down';
            } else {
              scroller.scrollTop = Math.max(0, scroller.scrollTop - px);
            }
          } else if (scroller.scrollTop >= max - 1) {
            out.ms = performance.now() - started;
            out.scrollHeight = scroller.scrollHeight;
            resolve(out);
            return;
          } else {
            scroller.scrollTop = Math.min(max, scroller.scrollTop + px);
          }
          requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }),
    step,
  );
}

function frameStats(frames) {
  return {
    frames: frames.length,
    p50: quantile(frames, 0.5),
    p95: quantile(frames, 0.95),
    p99: quantile(frames, 0.99),
    max: Math.max(...frames),
    // rAF times are aligned to 60 Hz vsyncs (16.67 ms): a frame over 16.7
    // ms missed at least one vsync, one over 33.4 ms at least two.
    over16_7: frames.filter((f) => f > 16.7).length,
    over33: frames.filter((f) => f > 33.4).length,
    over50: frames.filter((f) => f > 50).length,
  };
}

/**
 * traceFacts reads a Chrome trace: the renderer main thread's tasks over
 * 50 ms (and the longest), and the compositor's frames that the trace
 * reports as dropped, where the build records them.
 */
function traceFacts(file) {
  const trace = JSON.parse(fs.readFileSync(file, 'utf8'));
  const events = Array.isArray(trace) ? trace : trace.traceEvents;
  const mains = new Set();
  for (const e of events) {
    if (e.name === 'thread_name' && e.args?.name === 'CrRendererMain') {
      mains.add(`${e.pid}:${e.tid}`);
    }
  }
  const tasks = events
    .filter((e) => e.ph === 'X' && (e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask') && mains.has(`${e.pid}:${e.tid}`))
    .map((e) => (e.dur ?? 0) / 1000);
  const long = tasks.filter((d) => d > 50);
  // Microtasks (where Svelte's updates run) are not always inside a
  // RunTask slice; the longest JavaScript slice and the time in JavaScript
  // are counted on their own.
  const onMain = (e) => e.ph === 'X' && mains.has(`${e.pid}:${e.tid}`);
  const js = events.filter((e) => onMain(e) && (e.name === 'FunctionCall' || e.name === 'BlinkScheduler_PerformMicrotaskCheckpoint')).map((e) => (e.dur ?? 0) / 1000);
  const functionMs = events.filter((e) => onMain(e) && e.name === 'FunctionCall').reduce((a, e) => a + (e.dur ?? 0) / 1000, 0);
  const states = {};
  for (const e of events) {
    const state = e.name === 'PipelineReporter' && e.ph === 'b' ? e.args?.frame_reporter?.state : undefined;
    if (state) {
      states[state] = (states[state] ?? 0) + 1;
    }
  }
  return {
    mainThreadTasks: tasks.length,
    longTasksOver50ms: long.length,
    longestTaskMs: tasks.length ? Math.max(...tasks) : null,
    longTasksTotalMs: long.reduce((a, b) => a + b, 0),
    longestScriptMs: js.length ? Math.max(...js) : null,
    functionCallMs: functionMs,
    // The compositor's verdict on each frame (PipelineReporter): presented
    // (all or partly updated), dropped, or nothing to update.
    pipelineFrames: states,
  };
}

/**
 * baselineScroll runs the same scroll over a plain page as tall as the
 * session's list (paragraphs of text, no components), so that what the
 * machine itself costs (a loaded CPU, software rendering) can be told
 * apart from what the message list costs.
 */
async function baselineScroll(browser, height, rows) {
  const { context, page } = await newPage(browser);
  try {
    const per = Math.max(20, Math.floor(height / rows));
    const para = 'The parser indexes the first token without checking the length, so an empty input panics. ';
    const body = Array.from({ length: rows }, (_, i) => `<p style="height:${per - 16}px;margin:0 0 16px;overflow:hidden">${i}: ${para.repeat(3)}</p>`).join('');
    await page.setContent(
      `<!doctype html><body style="margin:0;font:16px sans-serif"><div class="scroller" style="height:100vh;overflow-y:auto"><div style="width:50rem;margin:0 auto">${body}</div></div></body>`,
    );
    const res = await scrollThrough(page, scrollStep);
    return { step: scrollStep, rows, durationMs: res.ms, scrollHeight: res.scrollHeight, ...frameStats(res.down) };
  } finally {
    await context.close();
  }
}

async function benchLongSession(browser, bin, llmURL, tmp) {
  const folders = seedData(path.join(tmp, 'long'), llmURL);
  const exportFile = path.join(tmp, 'long-session.json');
  fs.writeFileSync(exportFile, JSON.stringify(sessionExport(messageCount, folders.workspace)));
  const imported = execFileSync(bin, ['sessions', 'import', exportFile], { env: serveEnv(folders), encoding: 'utf8' });
  console.log(imported.trim());
  const { serve, url } = await startServe('long-serve', bin, folders);
  const opens = [];
  const scrolls = [];
  try {
    for (let i = 0; i < Math.max(openRuns, scrollRuns); i++) {
      const { context, page, errors } = await newPage(browser);
      try {
        await page.goto(url);
        await waitInteractive(page);
        if (i < openRuns) {
          const tracePath = path.join(artifacts, `open-${i + 1}.trace.json`);
          await browser.startTracing(page, { path: tracePath, categories: ['devtools.timeline', 'toplevel', 'benchmark'] });
          const cdp = process.env.BENCH_PROFILE ? await page.context().newCDPSession(page) : null;
          if (cdp) {
            await cdp.send('Profiler.enable');
            await cdp.send('Profiler.start');
          }
          const open = await openLongSession(page);
          if (cdp) {
            const { profile } = await cdp.send('Profiler.stop');
            fs.writeFileSync(path.join(artifacts, `open-${i + 1}.cpuprofile`), JSON.stringify(profile));
          }
          await browser.stopTracing();
          open.trace = traceFacts(tracePath);
          open.errors = errors.slice();
          opens.push(open);
          console.log(
            `open ${i + 1}/${openRuns}: last message in the DOM ${ms(open.clickToLastInDOMMs)}, painted ${ms(open.clickToLastPaintedMs)}; ` +
              `GetSession alone ${ms(open.getSessionMs)} (${open.getSessionBytes} bytes); ${open.seqRows} message rows, ${open.domNodes} DOM nodes, ${open.scrollHeight} px tall; longest task ${ms(open.trace.longestTaskMs)}, longest script ${ms(open.trace.longestScriptMs)}, in JavaScript ${ms(open.trace.functionCallMs)}`,
          );
        } else {
          await openLongSession(page);
        }
        if (i < scrollRuns) {
          const tracePath = path.join(artifacts, `scroll-${i + 1}.trace.json`);
          await browser.startTracing(page, { path: tracePath, categories: ['devtools.timeline', 'toplevel', 'benchmark', 'cc'] });
          const res = await scrollThrough(page, scrollStep);
          await browser.stopTracing();
          const up = { ...frameStats(res.up), durationMs: res.upMs, rows: res.rows };
          const scroll = { step: scrollStep, durationMs: res.ms, scrollHeight: res.scrollHeight, up, ...frameStats(res.down), trace: traceFacts(tracePath) };
          scrolls.push(scroll);
          console.log(
            `scroll up ${i + 1}/${scrollRuns}: ${up.frames} frames to the top with all ${up.rows} message rows shown in ${ms(up.durationMs)}; ` +
              `p50 ${ms(up.p50)}, p95 ${ms(up.p95)}, p99 ${ms(up.p99)}, max ${ms(up.max)}; >16.7 ms ${up.over16_7}, >33 ms ${up.over33}, >50 ms ${up.over50}`,
          );
          console.log(
            `scroll down ${i + 1}/${scrollRuns}: ${scroll.frames} frames at ${scrollStep} px/frame (${scroll.scrollHeight} px); ` +
              `p50 ${ms(scroll.p50)}, p95 ${ms(scroll.p95)}, p99 ${ms(scroll.p99)}, max ${ms(scroll.max)}; ` +
              `>16.7 ms ${scroll.over16_7}, >33 ms ${scroll.over33}, >50 ms ${scroll.over50}; ` +
              `both ways, main-thread tasks >50 ms ${scroll.trace.longTasksOver50ms} (longest ${ms(scroll.trace.longestTaskMs)}); ` +
              `compositor frames ${JSON.stringify(scroll.trace.pipelineFrames)}`,
          );
        }
        if (errors.length) {
          console.log(`console errors: ${errors.join(' | ')}`);
        }
      } finally {
        await context.close();
      }
    }
  } finally {
    await serve.stop();
  }
  let baseline = null;
  if (scrolls.length) {
    baseline = await baselineScroll(browser, scrolls[0].scrollHeight, messageCount);
    console.log(
      `baseline (plain page, ${baseline.scrollHeight} px): ${baseline.frames} frames; p50 ${ms(baseline.p50)}, p95 ${ms(baseline.p95)}, max ${ms(baseline.max)}; ` +
        `>16.7 ms ${baseline.over16_7}, >33 ms ${baseline.over33}`,
    );
  }
  return { messages: messageCount, opens, scrolls, baseline };
}

async function main() {
  if (!fs.existsSync(path.join(root, 'frontend', 'dist', 'index.html'))) {
    throw new Error('frontend/dist is missing: run npm run build in frontend/ first (scripts/bench-ui.sh does)');
  }
  if (!fs.existsSync(chromiumPath)) {
    throw new Error(`no Chromium at ${chromiumPath}: apt-get install chromium`);
  }
  fs.rmSync(artifacts, { recursive: true, force: true });
  fs.mkdirSync(artifacts, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tinyelf-bench-ui-'));
  const bin = path.join(tmp, 'bin');
  goBuild(path.join(bin, 'tinyelf-serve'), '.', 'embedui');
  goBuild(path.join(bin, 'fakellm'), './backend/llm/llmtest/cmd/fakellm');
  const scriptFile = path.join(tmp, 'script.json');
  fs.writeFileSync(scriptFile, JSON.stringify({ models: ['test-model'], default: { echo: true } }));
  const fakeLLM = new Proc('fakellm', path.join(bin, 'fakellm'), ['-script', scriptFile], cleanEnv({}));
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumArgs });
  const results = { when: new Date().toISOString(), cpus: os.cpus().length, chromium: browser.version(), viewport, loadAverageBefore: loadAverage() };
  try {
    const [, llmURL] = await fakeLLM.waitFor(/(http:\/\/127\.0\.0\.1:\d+\/v1)\r?\n/);
    const serveBin = path.join(bin, 'tinyelf-serve');
    results.firstPage = await benchFirstPage(browser, serveBin, llmURL, tmp);
    results.longSession = await benchLongSession(browser, serveBin, llmURL, tmp);
  } finally {
    results.loadAverageAfter = loadAverage();
    await browser.close();
    await fakeLLM.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  fs.writeFileSync(path.join(artifacts, 'results.json'), JSON.stringify(results, null, 2));
  const fp = results.firstPage;
  console.log('\nsummary');
  console.log(`load average before ${results.loadAverageBefore.join(' ')}, after ${results.loadAverageAfter.join(' ')}; Chromium ${results.chromium}`);
  console.log(
    `first page (median of ${firstPageRuns}): serve listening ${ms(fp.median.serveListeningMs)}; navigation to FCP ${ms(fp.median.navToFcpMs)}, ` +
      `to interactive ${ms(fp.median.navToInteractiveMs)} (${ms(fp.range.navToInteractiveMs[0])}–${ms(fp.range.navToInteractiveMs[1])}); ` +
      `launch to interactive ${ms(fp.median.launchToInteractiveMs)} (${ms(fp.range.launchToInteractiveMs[0])}–${ms(fp.range.launchToInteractiveMs[1])})`,
  );
  const ls = results.longSession;
  if (ls.opens.length) {
    console.log(`open ${ls.messages} messages (median of ${ls.opens.length}): last message painted ${ms(median(ls.opens.map((o) => o.clickToLastPaintedMs)))}`);
  }
  for (const s of ls.scrolls) {
    console.log(`scroll up: p50 ${ms(s.up.p50)} p95 ${ms(s.up.p95)} max ${ms(s.up.max)}; ${s.up.over16_7}/${s.up.frames} frames >16.7 ms, ${s.up.over33} >33 ms`);
    console.log(`scroll down: p50 ${ms(s.p50)} p95 ${ms(s.p95)} max ${ms(s.max)}; ${s.over16_7}/${s.frames} frames >16.7 ms, ${s.over33} >33 ms`);
  }
  if (ls.baseline) {
    const b = ls.baseline;
    console.log(`baseline: p50 ${ms(b.p50)} p95 ${ms(b.p95)} max ${ms(b.max)}; ${b.over16_7}/${b.frames} frames >16.7 ms, ${b.over33} >33 ms`);
  }
  console.log(`results in ${path.relative(process.cwd(), path.join(artifacts, 'results.json'))}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
