// What the chat and Settings → Capabilities say about capability discovery,
// computed from the backend's shapes: a change's chip summary and its items
// grouped for the dialog, the catalog's sources, filters and groups.
import type { MessageKey } from './i18n';
import type { CapabilityChange, CapabilityItem, CapabilityKind, CapabilityState, CapabilityView } from './types';

type Translate = (key: MessageKey, vars?: Record<string, string | number>) => string;

/** ChangeGroup names a section of a capability change's dialog. */
export type ChangeGroup = 'added' | 'removed' | 'indexAdded' | 'indexRemoved' | 'definition' | 'skills' | 'other';

/** changeGroups lists the dialog's sections in order. */
export const changeGroups: readonly ChangeGroup[] = ['added', 'removed', 'indexAdded', 'indexRemoved', 'definition', 'skills', 'other'];

/** groupOf says in which section of the dialog an item belongs. */
export function groupOf(it: CapabilityItem): ChangeGroup {
  if (it.kind === 'skill') {
    return 'skills';
  }
  if (it.kind !== 'tool') {
    return 'other';
  }
  const from = it.from ?? '';
  const to = it.to ?? '';
  if (to === 'visible' && from !== 'visible') {
    return 'added';
  }
  if (from === 'visible' && to !== 'visible') {
    return 'removed';
  }
  if (from === to) {
    return 'definition';
  }
  return to === 'deferred' ? 'indexAdded' : 'indexRemoved';
}

/** groupItems sorts a change's items into the dialog's sections, empty ones left out. */
export function groupItems(items: readonly CapabilityItem[]): { group: ChangeGroup; items: CapabilityItem[] }[] {
  const by = new Map<ChangeGroup, CapabilityItem[]>();
  for (const it of items) {
    const g = groupOf(it);
    by.set(g, [...(by.get(g) ?? []), it]);
  }
  return changeGroups.filter((g) => by.has(g)).map((g) => ({ group: g, items: by.get(g)! }));
}

/** ChipSummary is what a change's chip says: counts by section and the leading reason. */
export interface ChipSummary {
  counts: Record<ChangeGroup, number>;
  /** reason is the reason of the most telling item (a tool that came or went first). */
  reason: string;
  /** otherReasons counts the further distinct reasons. */
  otherReasons: number;
}

/** summarizeChange counts a change's items by section and picks the reason to show. */
export function summarizeChange(c: CapabilityChange): ChipSummary {
  const counts = Object.fromEntries(changeGroups.map((g) => [g, 0])) as Record<ChangeGroup, number>;
  const reasonOf: Partial<Record<ChangeGroup, string>> = {};
  const reasons: string[] = [];
  for (const it of c.items) {
    const g = groupOf(it);
    counts[g]++;
    if (it.reason && reasonOf[g] === undefined) {
      reasonOf[g] = it.reason;
    }
    if (it.reason && !reasons.includes(it.reason)) {
      reasons.push(it.reason);
    }
  }
  const lead = changeGroups.find((g) => reasonOf[g] !== undefined);
  const reason = lead ? reasonOf[lead]! : '';
  return { counts, reason, otherReasons: Math.max(0, reasons.length - (reason ? 1 : 0)) };
}

/** chipLabel is a change's chip text: "+2 tools: found by ToolSearch “pull request”". */
export function chipLabel(c: CapabilityChange, t: Translate): string {
  const s = summarizeChange(c);
  const n = s.counts;
  const parts: string[] = [];
  const count = (k: number, one: MessageKey, many: MessageKey) => {
    if (k > 0) {
      parts.push(t(k === 1 ? one : many, { count: k }));
    }
  };
  count(n.added, 'capchip.toolAdded', 'capchip.toolsAdded');
  count(n.removed, 'capchip.toolRemoved', 'capchip.toolsRemoved');
  if (n.added === 0 && n.removed === 0) {
    count(n.indexAdded, 'capchip.indexAdded', 'capchip.indexAdded');
    count(n.indexRemoved, 'capchip.indexRemoved', 'capchip.indexRemoved');
    count(n.definition, 'capchip.definitionOne', 'capchip.definitions');
    count(n.skills, 'capchip.skillOne', 'capchip.skills');
    count(n.other, 'capchip.otherOne', 'capchip.others');
  }
  const head = parts.join(' ');
  return s.reason ? t('capchip.label', { counts: head, reason: s.reason }) : head;
}

/** SourceKind sorts sources into TinyElf's own, MCP servers, skills, user tools and the rest. */
export type SourceKind = 'builtin' | 'mcp' | 'skill' | 'usertool' | 'surface' | 'other';

/** sourceKind reads a descriptor's source ("mcp:github", "builtin"…). */
export function sourceKind(source: string): SourceKind {
  const prefix = source.split(':')[0];
  switch (prefix) {
    case 'builtin':
    case 'mcp':
    case 'skill':
    case 'usertool':
    case 'surface':
      return prefix;
  }
  return 'other';
}

/** sourceLabel names a source for people: "TinyElf", "MCP server github". */
export function sourceLabel(source: string, t: Translate): string {
  const rest = source.includes(':') ? source.slice(source.indexOf(':') + 1) : '';
  switch (sourceKind(source)) {
    case 'builtin':
      return t('caps.sourceBuiltin');
    case 'surface':
      return t('caps.sourceSurface');
    case 'mcp':
      return t('caps.sourceMcp', { name: rest });
    case 'skill':
      return t('caps.sourceSkill', { name: rest || source });
    case 'usertool':
      return rest ? t('caps.sourceUserToolOf', { name: rest }) : t('caps.sourceUserTool');
  }
  return source;
}

const sourceOrder: Record<SourceKind, number> = { builtin: 0, mcp: 1, skill: 2, usertool: 3, surface: 4, other: 5 };

/** sortSources orders sources: TinyElf first, then MCP servers, skills, user tools, the surface, by name within each. */
export function sortSources(sources: Iterable<string>): string[] {
  return [...new Set(sources)].sort(
    (a, b) => sourceOrder[sourceKind(a)] - sourceOrder[sourceKind(b)] || a.localeCompare(b),
  );
}

/** CatalogFilter narrows the catalog list. */
export interface CatalogFilter {
  kind: CapabilityKind | '';
  source: string;
  state: CapabilityState | '';
  text: string;
}

/** emptyFilter shows everything. */
export const emptyFilter = (): CatalogFilter => ({ kind: '', source: '', state: '', text: '' });

/** filterCatalog keeps the entries a filter lets through (text matches name, title, identity or summary). */
export function filterCatalog(items: readonly CapabilityView[], f: CatalogFilter): CapabilityView[] {
  const text = f.text.trim().toLowerCase();
  return items.filter(
    (c) =>
      (!f.kind || c.kind === f.kind) &&
      (!f.source || c.source === f.source) &&
      (!f.state || c.state === f.state) &&
      (!text || [c.name, c.title, c.id, c.summary].some((s) => s?.toLowerCase().includes(text))),
  );
}

/** groupBySource groups catalog entries by source, in sortSources order, keeping the list's order within. */
export function groupBySource(items: readonly CapabilityView[]): { source: string; items: CapabilityView[] }[] {
  const by = new Map<string, CapabilityView[]>();
  for (const c of items) {
    by.set(c.source, [...(by.get(c.source) ?? []), c]);
  }
  return sortSources(by.keys()).map((source) => ({ source, items: by.get(source)! }));
}

/** stateCounts counts the catalog's tools by state, for the header. */
export function stateCounts(items: readonly CapabilityView[]): Record<CapabilityState, number> {
  const out: Record<CapabilityState, number> = { visible: 0, deferred: 0, hidden: 0, available: 0 };
  for (const c of items) {
    if (c.kind === 'tool') {
      out[c.state]++;
    }
  }
  return out;
}

/** bareName is a tool's name without the mcp__server__ prefix, as lists show it under its server. */
export function bareName(c: { name: string; server?: string }): string {
  if (c.server && c.name.startsWith(`mcp__${c.server}__`)) {
    return c.name.slice(`mcp__${c.server}__`.length);
  }
  return c.name;
}
