import { get } from 'svelte/store';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { capability, capabilityList, settingsView } from '../../test/fixtures';

vi.mock('../api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../api')>();
  return {
    ...actual,
    listCapabilities: vi.fn(),
    searchCapabilities: vi.fn(),
    updatePreferences: vi.fn(),
  };
});

import * as api from '../api';
import { catalog, catalogError, clearSearch, loadCatalog, saveDiscovery, search, searchCatalog } from './capabilities';
import { settings } from './settings';

const scope = { sessionId: '', mode: '' as const };

/** deferred returns a promise and the function that resolves it. */
function deferred<T>(): [Promise<T>, (v: T) => void] {
  let resolve!: (v: T) => void;
  const p = new Promise<T>((r) => (resolve = r));
  return [p, resolve];
}

beforeEach(() => {
  catalog.set(null);
  catalogError.set('');
  clearSearch();
});
afterEach(() => vi.clearAllMocks());

describe('catalog', () => {
  it('keeps only the newest answer', async () => {
    const [slow, answerSlow] = deferred<ReturnType<typeof capabilityList>>();
    vi.mocked(api.listCapabilities).mockReturnValueOnce(slow).mockResolvedValueOnce(capabilityList([capability('Grep')]));
    const first = loadCatalog(scope);
    await loadCatalog({ sessionId: 's1', mode: 'plan' });
    answerSlow(capabilityList([capability('Read')]));
    await first;
    expect(get(catalog)?.items.map((c) => c.name)).toEqual(['Grep']);
    expect(api.listCapabilities).toHaveBeenLastCalledWith({ sessionId: 's1', mode: 'plan' });
  });

  it('keeps a failure for the section to show', async () => {
    vi.mocked(api.listCapabilities).mockRejectedValueOnce(new api.ApiError('internal', 'the engine is gone'));
    await loadCatalog(scope);
    expect(get(catalogError)).toBe('the engine is gone');
  });
});

describe('search', () => {
  it('runs the model\'s search, newest answer wins, a blank query clears', async () => {
    const [slow, answerSlow] = deferred<Awaited<ReturnType<typeof api.searchCapabilities>>>();
    vi.mocked(api.searchCapabilities)
      .mockReturnValueOnce(slow)
      .mockResolvedValueOnce({ query: 'pull request', items: [{ id: 'x', name: 'x', kind: 'tool', source: 'builtin', risk: 'low', summary: '', why: 'name: pull', use: '', state: 'deferred', tokens: 9 }] });
    const first = searchCatalog('pull', { regex: false, kind: '', scope });
    await searchCatalog('pull request', { regex: false, kind: '', scope });
    answerSlow({ query: 'pull', items: [] });
    await first;
    expect(get(search).query).toBe('pull request');
    expect(get(search).result?.items?.[0].why).toBe('name: pull');
    expect(api.searchCapabilities).toHaveBeenLastCalledWith({ query: 'pull request', regex: false, kind: '', limit: 10, sessionId: '', mode: '' });

    await searchCatalog('  ', { regex: false, kind: '', scope });
    expect(get(search).result).toBeNull();
    expect(api.searchCapabilities).toHaveBeenCalledTimes(2);
  });

  it('shows why the backend refused a query', async () => {
    vi.mocked(api.searchCapabilities).mockRejectedValueOnce(new api.ApiError('invalid', 'the regular expression does not compile'));
    await searchCatalog('ech(o', { regex: true, kind: '', scope });
    expect(get(search)).toMatchObject({ error: 'the regular expression does not compile', running: false, regex: true });
  });
});

describe('saveDiscovery', () => {
  it('saves the setting and reloads the catalog and the search', async () => {
    vi.mocked(api.updatePreferences).mockResolvedValueOnce(settingsView({ discovery: { defer: 'always', threshold: 0.1 } }));
    vi.mocked(api.listCapabilities).mockResolvedValue(capabilityList([capability('Read')]));
    vi.mocked(api.searchCapabilities).mockResolvedValue({ query: 'x', items: [] });
    await searchCatalog('x', { regex: false, kind: 'tool', scope });
    expect(await saveDiscovery({ defer: 'always', threshold: 0.1 }, scope)).toBe(true);
    expect(api.updatePreferences).toHaveBeenCalledWith({ discovery: { defer: 'always', threshold: 0.1 } });
    expect(get(settings)?.discovery?.defer).toBe('always');
    expect(api.listCapabilities).toHaveBeenCalled();
    expect(api.searchCapabilities).toHaveBeenLastCalledWith(expect.objectContaining({ query: 'x', kind: 'tool' }));
  });
});
