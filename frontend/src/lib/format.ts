// Pure formatting helpers: numbers, costs, dates, session groups and tool
// call summaries. Nothing here touches the DOM or the backend.
import type { Language } from './i18n';
import type { ApprovalView, Session, ToolCallView } from './types';

/** formatInt formats a count with the language's digit grouping. */
export function formatInt(n: number, lang: Language): string {
  return integerFormat(lang).format(Math.round(n));
}

// Making an Intl.NumberFormat costs far more than using one: a long
// session formats thousands of token counts.
const integerFormats = new Map<Language, Intl.NumberFormat>();

function integerFormat(lang: Language): Intl.NumberFormat {
  let f = integerFormats.get(lang);
  if (!f) {
    f = new Intl.NumberFormat(lang);
    integerFormats.set(lang, f);
  }
  return f;
}

/** formatCompact formats a large count briefly ("128K", "12万"). */
export function formatCompact(n: number, lang: Language): string {
  return new Intl.NumberFormat(lang, { notation: 'compact', maximumFractionDigits: 1 }).format(n);
}

/** formatCost formats US dollars, with more digits for small amounts. */
export function formatCost(usd: number, lang: Language): string {
  const digits = usd > 0 && usd < 0.01 ? 4 : 2;
  return new Intl.NumberFormat(lang, {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(usd);
}

/** formatTime gives the clock time of an ISO timestamp. */
export function formatTime(iso: string, lang: Language): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleTimeString(lang, { hour: '2-digit', minute: '2-digit' });
}

/** formatDateTime gives the date and time of an ISO timestamp. */
export function formatDateTime(iso: string, lang: Language): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleString(lang, { dateStyle: 'medium', timeStyle: 'short' });
}

/** folderName is the last part of a folder's path ("/home/me/demo" → "demo"). */
export function folderName(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).pop() || path;
}

/** dayKey is a date's local calendar day, YYYY-MM-DD. */
export function dayKey(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** SessionGroup is the sessions of one day; label is 'today', 'yesterday' or a date. */
export interface SessionGroup {
  key: string;
  label: 'today' | 'yesterday' | string;
  sessions: Session[];
}

/**
 * groupByDay groups sessions (newest first) by the local day they were last
 * updated: today, yesterday, then one group per earlier date.
 */
export function groupByDay(sessions: Session[], now: Date, lang: Language): SessionGroup[] {
  const today = dayKey(now);
  const y = new Date(now);
  y.setDate(y.getDate() - 1);
  const yesterday = dayKey(y);
  const groups: SessionGroup[] = [];
  const sorted = [...sessions].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  for (const s of sorted) {
    const d = new Date(s.updatedAt);
    const key = dayKey(d);
    let group = groups.find((g) => g.key === key);
    if (!group) {
      let label: string;
      if (key === today) {
        label = 'today';
      } else if (key === yesterday) {
        label = 'yesterday';
      } else {
        const sameYear = d.getFullYear() === now.getFullYear();
        label = d.toLocaleDateString(lang, {
          weekday: 'short',
          month: 'short',
          day: 'numeric',
          ...(sameYear ? {} : { year: 'numeric' }),
        });
      }
      group = { key, label, sessions: [] };
      groups.push(group);
    }
    group.sessions.push(s);
  }
  return groups;
}

/** parseArgs reads a tool call's JSON arguments; junk gives {}. */
export function parseArgs(json: string | undefined): Record<string, unknown> {
  if (!json) {
    return {};
  }
  try {
    const v: unknown = JSON.parse(json);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** prettyJSON indents JSON text for reading; text that is not JSON is returned as is. */
export function prettyJSON(json: string | undefined): string {
  if (!json) {
    return '';
  }
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

/** toolDisplayName shows an MCP tool as "server · tool" and others as they are. */
export function toolDisplayName(name: string): string {
  const m = /^mcp__(.+?)__(.+)$/.exec(name);
  return m ? `${m[1]} · ${m[2]}` : name;
}

function oneLine(s: string, max = 120): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** toolSummary is a one-line summary of a call's arguments for its card. */
export function toolSummary(name: string, argsJSON: string | undefined): string {
  const a = parseArgs(argsJSON);
  const str = (k: string) => (typeof a[k] === 'string' ? (a[k] as string) : '');
  switch (name) {
    case 'Read':
    case 'Write':
    case 'Edit':
    case 'ListDir':
      return oneLine(str('path') || '.');
    case 'Bash':
      return oneLine(str('command'));
    case 'Grep': {
      const where = str('path') || str('glob');
      return oneLine(where ? `${str('pattern')} · ${where}` : str('pattern'));
    }
    case 'Glob':
      return oneLine(str('pattern'));
    case 'Notify':
      return oneLine(str('title') || str('message'));
    case 'WebFetch':
      return oneLine(str('prompt') ? `${str('url')} · ${str('prompt')}` : str('url'));
    case 'WebSearch':
      return oneLine(str('query'));
  }
  for (const v of Object.values(a)) {
    if (typeof v === 'string' && v.trim()) {
      return oneLine(v);
    }
  }
  const keys = Object.keys(a);
  return keys.length ? oneLine(JSON.stringify(a)) : '';
}

/** lineCount counts the lines of a text. */
export function lineCount(s: string): number {
  if (!s) {
    return 0;
  }
  return s.split('\n').length - (s.endsWith('\n') ? 1 : 0);
}

/** DiffLine is one line of a unified diff, classified for display. */
export interface DiffLine {
  kind: 'file' | 'hunk' | 'add' | 'del' | 'ctx' | 'note';
  text: string;
  oldNo?: number;
  newNo?: number;
}

/** parseUnifiedDiff classifies and numbers the lines of a unified diff. */
export function parseUnifiedDiff(diff: string): DiffLine[] {
  const out: DiffLine[] = [];
  let oldNo = 0;
  let newNo = 0;
  const lines = diff.split('\n');
  if (lines.length && lines[lines.length - 1] === '') {
    lines.pop();
  }
  for (const line of lines) {
    if (line.startsWith('--- ') || line.startsWith('+++ ')) {
      out.push({ kind: 'file', text: line });
    } else if (line.startsWith('@@')) {
      const m = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
      if (m) {
        oldNo = Number(m[1]);
        newNo = Number(m[2]);
      }
      out.push({ kind: 'hunk', text: line });
    } else if (line.startsWith('+')) {
      out.push({ kind: 'add', text: line.slice(1), newNo: newNo++ });
    } else if (line.startsWith('-')) {
      out.push({ kind: 'del', text: line.slice(1), oldNo: oldNo++ });
    } else if (line.startsWith('\\')) {
      out.push({ kind: 'note', text: line });
    } else {
      out.push({ kind: 'ctx', text: line.startsWith(' ') ? line.slice(1) : line, oldNo: oldNo++, newNo: newNo++ });
    }
  }
  return out;
}

/** ruleNotation writes a permission rule as Claude Code does: `Bash(git status:*)`, or the tool name for a whole tool. */
export function ruleNotation(tool: string, pattern?: string): string {
  return pattern ? `${tool}(${pattern})` : tool;
}

/** suggestedRule is what an approval's "allow always" saves, in that notation; older sessions stored a bare Bash prefix. */
export function suggestedRule(name: string, suggestion?: string): string {
  if (!suggestion) {
    return '';
  }
  if (name === 'Bash' && !suggestion.startsWith('Bash(')) {
    return `Bash(${suggestion}:*)`;
  }
  return suggestion;
}

/**
 * blockedReason says whether a call was refused without the user being
 * asked (a deny rule, the permission mode, or the shell guard's deny list)
 * and why: null when it was not, "" when no reason was recorded.
 */
export function blockedReason(tool: ToolCallView, approval?: ApprovalView): string | null {
  if (tool.status === 'denied' && ['guard', 'rule', 'mode', 'hook'].includes(tool.decidedBy ?? '')) {
    return tool.reason || approval?.reason || '';
  }
  if (tool.meta?.denied === true) {
    return tool.reason || tool.result || '';
  }
  return null;
}

/** MediaItem is an image or a piece of audio a tool returned, ready for the page. */
export interface MediaItem {
  mimeType: string;
  src: string;
}

const imageTypes = /^image\/(png|jpeg|jpg|gif|webp|avif|bmp|svg\+xml)$/i;
const audioTypes = /^audio\/(wav|x-wav|wave|mpeg|mp3|ogg|webm|aac|flac|mp4|x-m4a)$/i;
const base64 = /^[A-Za-z0-9+/=\s]+$/;

/**
 * toolMedia returns the images and audio an MCP tool returned (kept in the
 * result's meta as base64 with a MIME type) as data URLs; anything else,
 * or data that is not base64, is left out.
 */
export function toolMedia(meta: Record<string, unknown> | undefined): { images: MediaItem[]; audio: MediaItem[] } {
  const pick = (key: string, types: RegExp): MediaItem[] => {
    const list = meta?.[key];
    if (!Array.isArray(list)) {
      return [];
    }
    const out: MediaItem[] = [];
    for (const m of list) {
      const mimeType = typeof m?.mimeType === 'string' ? m.mimeType.trim() : '';
      const data = typeof m?.data === 'string' ? m.data : '';
      if (types.test(mimeType) && data && base64.test(data)) {
        out.push({ mimeType, src: `data:${mimeType};base64,${data.replace(/\s+/g, '')}` });
      }
    }
    return out;
  };
  return { images: pick('images', imageTypes), audio: pick('audio', audioTypes) };
}
