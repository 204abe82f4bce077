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
//     the frame times while it is scrolled from the bottom (where it opens)
//     to its first message and back down, a fixed number of pixels per
//     animation frame: from requestAnimationFrame, and from a Chrome trace
//     (browser.startTracing) of the same scroll: the compositor's frames
//     (presented, presented without the main thread's update, dropped) and
//     the intervals between presented frames, the main thread's long tasks
//     and its CPU time per frame. The same scroll over a plain page of the
//     same height is the baseline: what this machine drops anyway.
//
// Run with: node e2e/bench.mjs   (from frontend/, after npm run build)
// scripts/bench-ui.sh does both. Environment: BENCH_RUNS (first-page runs,
// default 7), BENCH_OPEN_RUNS (session opens, default 3), BENCH_SCROLL_RUNS
// (default 2), BENCH_MESSAGES (default 2000), BENCH_SCROLL_STEP (pixels per
// frame, default 100), BENCH_PROFILE=1 (a CPU profile of each open),
// BENCH_KEEP_TRACES=1 (keep the scroll traces: hundreds of MB each; read
// again with node e2e/bench.mjs --trace FILE...). Results go to
// artifacts/bench-ui/results.json, the servers' logs beside them.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { cleanEnv, goBuild, Proc as HarnessProc } from './harness.mjs';
import { longSessionExport } from './longsession.mjs';

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
const firstQuestion = 'Question 1:';

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
      rows: document.querySelectorAll('.messages [data-row]').length,
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
 * scrollThrough moves the scroller by step pixels on every animation frame,
 * recording the time between frames: first up from the bottom (where a
 * session opens) to the very top, then down to the bottom again. An end is
 * reached when the scroller has stayed there for 10 frames with the text
 * the end must show (firstText in the first row, lastText in the last one)
 * rendered: the list renders the rows near the viewport only, and measures
 * them as they come, so its height can still change on the way. Reported:
 * the frame times each way, how long each way took, and the most rows and
 * DOM nodes seen at once.
 */
async function scrollThrough(page, step, { firstText = null, lastText = null } = {}) {
  return page.evaluate(
    ([px, firstText, lastText]) =>
      new Promise((resolve) => {
        const scroller = document.querySelector('.scroller');
        const rowsIn = () => scroller.querySelectorAll('[data-row]');
        const shows = (text, which) => {
          if (text === null) {
            return true;
          }
          const rows = rowsIn();
          const row = which === 'first' ? rows[0] : rows[rows.length - 1];
          return Boolean(row && row.textContent.includes(text));
        };
        const out = { up: [], down: [], maxRows: 0, maxNodes: 0 };
        let dir = 'up';
        let settle = 10;
        let still = 0;
        let last = 0;
        let n = 0;
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
          if (n++ % 10 === 0) {
            out.maxRows = Math.max(out.maxRows, rowsIn().length);
            out.maxNodes = Math.max(out.maxNodes, document.getElementsByTagName('*').length);
          }
          const max = scroller.scrollHeight - scroller.clientHeight;
          if (dir === 'up') {
            still = scroller.scrollTop <= 0 && shows(firstText, 'first') ? still + 1 : 0;
            if (still >= 10) {
              out.upMs = performance.now() - started;
              out.topHeight = scroller.scrollHeight;
              dir = 'down';
              still = 0;
            } else {
              scroller.scrollTop = Math.max(0, scroller.scrollTop - px);
            }
          } else {
            still = scroller.scrollTop >= max - 1 && shows(lastText, 'last') ? still + 1 : 0;
            if (still >= 10) {
              out.ms = performance.now() - started;
              out.downMs = out.ms - out.upMs;
              out.scrollHeight = scroller.scrollHeight;
              resolve(out);
              return;
            }
            scroller.scrollTop = Math.min(max, scroller.scrollTop + px);
          }
          requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }),
    [step, firstText, lastText],
  );
}

function frameStats(frames) {
  return {
    frames: frames.length,
    p50: quantile(frames, 0.5),
    p95: quantile(frames, 0.95),
    p99: quantile(frames, 0.99),
    max: frames.length ? Math.max(...frames) : NaN,
    // Frames come at 60 Hz vsyncs (16.67 ms) give or take a few tenths of
    // a millisecond (a 16.8 ms frame is on time): a frame counts as over
    // 16.7 ms when it missed at least one vsync (over 20 ms), over 33.4 ms
    // two (over 36.7 ms), over 50 ms three (over 53.4 ms).
    over16_7: frames.filter((f) => f > 20).length,
    over33: frames.filter((f) => f > 36.7).length,
    over50: frames.filter((f) => f > 53.4).length,
  };
}

/** traceCategories are what the scroll traces record: tasks, frames (PipelineReporter) and the main thread's work. */
const traceCategories = ['devtools.timeline', 'toplevel', 'benchmark', 'disabled-by-default-devtools.timeline.frame'];

/**
 * traceFacts reads a Chrome trace (one event per line, as Chromium writes
 * it; read as a stream, a long scroll's trace is hundreds of MB) for the
 * page's renderer (the one whose main thread ran the most tasks):
 *  - its main thread's tasks: how many, those over 50 ms, the longest, and
 *    the CPU time they took per frame (thread time, which a loaded machine
 *    does not inflate the way it does wall time);
 *  - its compositor's frames (PipelineReporter): how many were presented
 *    with the main thread's update (STATE_PRESENTED_ALL), presented without
 *    it because the main thread missed the deadline (PRESENTED_PARTIAL),
 *    dropped, or had nothing to update; and the intervals between
 *    successive presented frames, with the same statistics as the
 *    requestAnimationFrame times.
 */
async function traceFacts(file) {
  const threads = new Map(); // "pid:tid" → name
  const tasks = new Map(); // "pid:tid" → [{ dur, tdur }]
  const scripts = new Map(); // pid → [ms]
  const reporters = new Map(); // pid → { frames: [{ state, end }], open: Map(id → frame) }
  const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  for await (const raw of lines) {
    const line = raw.endsWith(',') ? raw.slice(0, -1) : raw;
    if (!line.startsWith('{"')) {
      continue;
    }
    const isTask = line.includes('"name":"ThreadControllerImpl::RunTask"');
    const isReporter = line.includes('"name":"PipelineReporter"');
    const isThread = line.includes('"name":"thread_name"');
    const isScript = line.includes('"name":"FunctionCall"');
    if (!isTask && !isReporter && !isThread && !isScript) {
      continue;
    }
    let e;
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    const thread = `${e.pid}:${e.tid}`;
    if (isThread) {
      threads.set(thread, e.args?.name);
    } else if (isTask && e.ph === 'X') {
      if (!tasks.has(thread)) {
        tasks.set(thread, []);
      }
      tasks.get(thread).push({ dur: (e.dur ?? 0) / 1000, tdur: (e.tdur ?? e.dur ?? 0) / 1000 });
    } else if (isScript && e.ph === 'X') {
      if (!scripts.has(thread)) {
        scripts.set(thread, []);
      }
      scripts.get(thread).push((e.dur ?? 0) / 1000);
    } else if (isReporter) {
      // Async slices: a frame's begin and end share an id, which later
      // frames reuse.
      if (!reporters.has(e.pid)) {
        reporters.set(e.pid, { frames: [], open: new Map() });
      }
      const r = reporters.get(e.pid);
      const id = `${e.tid}:${e.id2?.local ?? e.id}`;
      if (e.ph === 'b') {
        const f = { seq: e.args?.frame_reporter?.frame_sequence, state: e.args?.frame_reporter?.state ?? '?', end: null };
        r.frames.push(f);
        r.open.set(id, f);
      } else if (e.ph === 'e' && r.open.has(id)) {
        r.open.get(id).end = e.ts / 1000;
        r.open.delete(id);
      }
    }
  }
  let main = null;
  for (const [thread, list] of tasks) {
    if (threads.get(thread) === 'CrRendererMain' && (!main || list.length > tasks.get(main).length)) {
      main = thread;
    }
  }
  const mainTasks = main ? tasks.get(main) : [];
  const pid = main ? Number(main.split(':')[0]) : null;
  // A frame (one BeginFrame, by its sequence number) can have more than
  // one reporter: the compositor's own and the main thread's, when that
  // came late. Each frame counts once, with the best that became of it.
  const rank = ['STATE_PRESENTED_ALL', 'STATE_PRESENTED_PARTIAL', 'STATE_DROPPED', 'STATE_NO_UPDATE_DESIRED'];
  const bySeq = new Map();
  for (const f of reporters.get(pid)?.frames ?? []) {
    const had = bySeq.get(f.seq);
    const better = !had || rank.indexOf(f.state) < rank.indexOf(had.state) || (f.state === had.state && f.end !== null && (had.end === null || f.end < had.end));
    if (better) {
      bySeq.set(f.seq, f);
    }
  }
  const states = {};
  for (const f of bySeq.values()) {
    states[f.state] = (states[f.state] ?? 0) + 1;
  }
  const presented = [...bySeq.values()]
    .filter((f) => f.end !== null && (f.state === 'STATE_PRESENTED_ALL' || f.state === 'STATE_PRESENTED_PARTIAL'))
    .map((f) => f.end)
    .sort((a, b) => a - b);
  const intervals = presented.slice(1).map((t, i) => t - presented[i]);
  const cpu = mainTasks.reduce((a, t) => a + t.tdur, 0);
  const js = main ? (scripts.get(main) ?? []) : [];
  return {
    mainThreadTasks: mainTasks.length,
    longTasksOver50ms: mainTasks.filter((t) => t.dur > 50).length,
    longestTaskMs: mainTasks.length ? Math.max(...mainTasks.map((t) => t.dur)) : null,
    mainThreadCpuMs: cpu,
    longestScriptMs: js.length ? Math.max(...js) : null,
    scriptMs: js.reduce((a, b) => a + b, 0),
    pipelineFrames: states,
    presentedFrames: presented.length,
    mainCpuPerPresentedFrameMs: presented.length ? cpu / presented.length : null,
    presentedIntervals: frameStats(intervals),
  };
}

function frameLine(label, f) {
  return `${label}: ${f.frames} frames; p50 ${ms(f.p50)}, p95 ${ms(f.p95)}, p99 ${ms(f.p99)}, max ${ms(f.max)}; >16.7 ms ${f.over16_7}, >33 ms ${f.over33}, >50 ms ${f.over50}`;
}

function traceLine(label, t) {
  const st = t.pipelineFrames;
  return (
    `${label} (trace): main thread ${ms(t.mainCpuPerPresentedFrameMs)} CPU per presented frame, tasks >50 ms ${t.longTasksOver50ms} (longest ${ms(t.longestTaskMs)}); ` +
    `frames presented ${st.STATE_PRESENTED_ALL ?? 0} whole + ${st.STATE_PRESENTED_PARTIAL ?? 0} without the main thread's update, dropped ${st.STATE_DROPPED ?? 0}; ` +
    frameLine('intervals between presented frames', t.presentedIntervals)
  );
}

/**
 * scrollRun scrolls page's list up and down under a trace and returns the
 * frame times from requestAnimationFrame both ways and the trace's facts.
 */
async function scrollRun(browser, page, name, texts) {
  const tracePath = path.join(artifacts, `${name}.trace.json`);
  await browser.startTracing(page, { path: tracePath, categories: traceCategories });
  const res = await scrollThrough(page, scrollStep, texts);
  await browser.stopTracing();
  const run = {
    step: scrollStep,
    durationMs: res.ms,
    scrollHeight: res.scrollHeight,
    maxRows: res.maxRows,
    maxNodes: res.maxNodes,
    up: { ...frameStats(res.up), durationMs: res.upMs },
    down: { ...frameStats(res.down), durationMs: res.downMs },
    trace: await traceFacts(tracePath),
  };
  if (!process.env.BENCH_KEEP_TRACES) {
    fs.rmSync(tracePath, { force: true });
  }
  return run;
}

function printScroll(label, s) {
  console.log(`${label}: up in ${ms(s.up.durationMs)}, down in ${ms(s.down.durationMs)} (${s.scrollHeight} px at ${s.step} px/frame; at most ${s.maxRows} rows, ${s.maxNodes} DOM nodes)`);
  console.log(`  ${frameLine('up (rAF)', s.up)}`);
  console.log(`  ${frameLine('down (rAF)', s.down)}`);
  console.log(`  ${traceLine('both ways', s.trace)}`);
}

/**
 * baselineScroll runs the same scroll over a plain page as tall as the
 * session's list (paragraphs of text, no components), from its bottom, so
 * that what the machine itself costs (a loaded CPU, software rendering)
 * can be told apart from what the message list costs.
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
    await page.evaluate(() => {
      const s = document.querySelector('.scroller');
      s.scrollTop = s.scrollHeight;
    });
    return { rows, ...(await scrollRun(browser, page, 'baseline', {})) };
  } finally {
    await context.close();
  }
}

async function benchLongSession(browser, bin, llmURL, tmp) {
  const folders = seedData(path.join(tmp, 'long'), llmURL);
  const exportFile = path.join(tmp, 'long-session.json');
  fs.writeFileSync(exportFile, JSON.stringify(longSessionExport({ messages: messageCount, title: sessionTitle, workspace: folders.workspace, endMarker })));
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
          await browser.startTracing(page, { path: tracePath, categories: traceCategories });
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
          open.trace = await traceFacts(tracePath);
          open.errors = errors.slice();
          opens.push(open);
          console.log(
            `open ${i + 1}/${openRuns}: last message in the DOM ${ms(open.clickToLastInDOMMs)}, painted ${ms(open.clickToLastPaintedMs)}; ` +
              `GetSession alone ${ms(open.getSessionMs)} (${open.getSessionBytes} bytes); ${open.seqRows} message rows, ${open.domNodes} DOM nodes, ${open.scrollHeight} px tall; longest task ${ms(open.trace.longestTaskMs)}, longest script ${ms(open.trace.longestScriptMs)}, in JavaScript ${ms(open.trace.scriptMs)}`,
          );
        } else {
          await openLongSession(page);
        }
        if (i < scrollRuns) {
          const scroll = await scrollRun(browser, page, `scroll-${i + 1}`, { firstText: firstQuestion, lastText: endMarker });
          scroll.loadAverage = loadAverage();
          scrolls.push(scroll);
          printScroll(`scroll ${i + 1}/${scrollRuns} (load average ${scroll.loadAverage.join(' ')})`, scroll);
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
    baseline.loadAverage = loadAverage();
    printScroll(`baseline, a plain page as tall (load average ${baseline.loadAverage.join(' ')})`, baseline);
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
  for (const [i, sc] of ls.scrolls.entries()) {
    printScroll(`scroll ${i + 1}`, sc);
  }
  if (ls.baseline) {
    printScroll('baseline', ls.baseline);
  }
  console.log(`results in ${path.relative(process.cwd(), path.join(artifacts, 'results.json'))}`);
}

// node e2e/bench.mjs --trace FILE...: what traceFacts reads from saved traces (BENCH_KEEP_TRACES=1 keeps them).
const traceFiles = process.argv[2] === '--trace' ? process.argv.slice(3) : null;
(traceFiles ? Promise.all(traceFiles.map(async (f) => console.log(traceLine(path.basename(f), await traceFacts(f))))) : main()).catch((err) => {
  console.error(err);
  process.exit(1);
});
