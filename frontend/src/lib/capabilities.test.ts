import { describe, expect, it } from 'vitest';
import { capability, mcpCapability, searchChange } from '../test/fixtures';
import {
  bareName,
  chipLabel,
  filterCatalog,
  emptyFilter,
  groupBySource,
  groupItems,
  groupOf,
  sortSources,
  sourceLabel,
  stateCounts,
  summarizeChange,
} from './capabilities';
import { translate, type MessageKey } from './i18n';
import type { CapabilityChange, CapabilityItem } from './types';

const en = (key: MessageKey, vars?: Record<string, string | number>) => translate('en', key, vars);
const ja = (key: MessageKey, vars?: Record<string, string | number>) => translate('ja', key, vars);

const item = (name: string, from: string, to: string, reason = 'why', kind = 'tool'): CapabilityItem => ({
  id: name,
  name,
  kind,
  change: from === '' ? 'added' : to === '' ? 'removed' : 'changed',
  from: from as CapabilityItem['from'],
  to: to as CapabilityItem['to'],
  reason,
});

const change = (items: CapabilityItem[]): CapabilityChange => ({ items, visible: 0, deferred: 0 });

describe('groupOf', () => {
  it.each([
    ['found by a search', item('a', 'deferred', 'visible'), 'added'],
    ['new and visible', item('a', '', 'visible'), 'added'],
    ['server gone', item('a', 'visible', ''), 'removed'],
    ['budget moved it to the index', item('a', 'visible', 'deferred'), 'removed'],
    ['new server, deferred', item('a', '', 'deferred'), 'indexAdded'],
    ['deferred tool gone', item('a', 'deferred', ''), 'indexRemoved'],
    ['new definition', item('a', 'visible', 'visible'), 'definition'],
    ['a skill', item('s', '', 'deferred', 'why', 'skill'), 'skills'],
    ['a prompt', item('p', '', 'available', 'why', 'prompt'), 'other'],
  ] as const)('%s', (_, it, want) => {
    expect(groupOf(it)).toBe(want);
  });

  it('groups items in the dialog order, empty groups left out', () => {
    const groups = groupItems([item('x', 'visible', ''), item('y', '', 'visible'), item('z', 'visible', '')]);
    expect(groups.map((g) => [g.group, g.items.map((i) => i.name)])).toEqual([
      ['added', ['y']],
      ['removed', ['x', 'z']],
    ]);
  });
});

describe('chip', () => {
  it('says what a search loaded and why', () => {
    const c = searchChange(9).capabilities!;
    expect(chipLabel(c, en)).toBe('+2 tools: found by ToolSearch "pull request"');
    expect(chipLabel(c, ja)).toBe('ツール +2: found by ToolSearch "pull request"');
    expect(summarizeChange(c).otherReasons).toBe(0);
  });

  it('says what a disconnect took away, one tool in the singular', () => {
    const c = change([item('mcp__github__get_me', 'visible', '', 'MCP server github disconnected')]);
    expect(chipLabel(c, en)).toBe('−1 tool: MCP server github disconnected');
  });

  it('counts the index only when no visible tool changed', () => {
    const connect = change([item('a', '', 'deferred', 'deferred to the index'), item('b', '', 'deferred', 'deferred to the index')]);
    expect(chipLabel(connect, en)).toBe('+2 in the index: deferred to the index');
    const both = change([item('a', '', 'visible', 'the task names a'), item('b', 'visible', '', 'gone'), item('c', '', 'deferred', 'idx')]);
    expect(chipLabel(both, en)).toBe('+1 tool −1 tool: the task names a');
    expect(summarizeChange(both).otherReasons).toBe(2);
  });
});

describe('catalog', () => {
  const items = [
    capability('Read'),
    capability('Write', { state: 'hidden', reason: 'plan mode hides it', readOnly: false }),
    mcpCapability('github', 'create_pull_request'),
    mcpCapability('alpha', 'ping', { state: 'visible' }),
    capability('approvals', { id: 'channel__approvals', kind: 'channel', source: 'surface', state: 'available' }),
  ];

  it('filters by kind, source, state and name', () => {
    expect(filterCatalog(items, { ...emptyFilter(), kind: 'channel' }).map((c) => c.name)).toEqual(['approvals']);
    expect(filterCatalog(items, { ...emptyFilter(), source: 'mcp:github' }).map((c) => c.name)).toEqual(['mcp__github__create_pull_request']);
    expect(filterCatalog(items, { ...emptyFilter(), state: 'hidden' }).map((c) => c.name)).toEqual(['Write']);
    expect(filterCatalog(items, { ...emptyFilter(), text: 'PULL' }).map((c) => c.name)).toEqual(['mcp__github__create_pull_request']);
  });

  it('groups by source: TinyElf, the MCP servers by name, then the surface', () => {
    expect(groupBySource(items).map((g) => g.source)).toEqual(['builtin', 'mcp:alpha', 'mcp:github', 'surface']);
    expect(sortSources(['surface', 'usertool:personal', 'skill:project', 'mcp:b', 'builtin'])).toEqual([
      'builtin',
      'mcp:b',
      'skill:project',
      'usertool:personal',
      'surface',
    ]);
  });

  it('names sources and counts tool states', () => {
    expect(sourceLabel('mcp:github', en)).toBe('MCP server github');
    expect(sourceLabel('builtin', ja)).toBe('TinyElf');
    expect(sourceLabel('usertool:personal', en)).toBe('User tools: personal');
    expect(stateCounts(items)).toEqual({ visible: 2, deferred: 1, hidden: 1, available: 0 });
    expect(bareName(items[2])).toBe('create_pull_request');
    expect(bareName(items[0])).toBe('Read');
  });
});
