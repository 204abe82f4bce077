// Settings → Capabilities: the catalog with the policy's verdicts, and the
// search the model's ToolSearch runs, for a new session or the open one.
// Answers that arrive after a newer request are dropped, so typing fast
// never shows an older search's hits.
import { get, writable } from 'svelte/store';
import * as api from '../api';
import type { CapabilityList, CapabilitySearchResult, CapabilityKind, Discovery, PermissionMode } from '../types';
import { errorMessage } from '../util';
import { updatePreferences } from './settings';

/** CapabilityScope says whose next model call the states are computed for. */
export interface CapabilityScope {
  /** sessionId is the open session, or '' for a new session. */
  sessionId: string;
  /** mode overrides the permission mode ('' keeps the session's or the settings'). */
  mode: PermissionMode | '';
}

/** catalog is the last ListCapabilities answer, null until loaded. */
export const catalog = writable<CapabilityList | null>(null);

/** catalogError is why the last load failed ('' when it did not). */
export const catalogError = writable('');

/** catalogLoading is true while a load runs. */
export const catalogLoading = writable(false);

let loads = 0;

/** loadCatalog fetches the catalog for a scope; a failure is kept in catalogError. */
export async function loadCatalog(scope: CapabilityScope): Promise<void> {
  const n = ++loads;
  catalogLoading.set(true);
  try {
    const list = await api.listCapabilities({ sessionId: scope.sessionId, mode: scope.mode });
    if (n === loads) {
      catalog.set(list);
      catalogError.set('');
    }
  } catch (err) {
    if (n === loads) {
      catalogError.set(errorMessage(err));
    }
  } finally {
    if (n === loads) {
      catalogLoading.set(false);
    }
  }
}

/** SearchState is the search box's outcome. */
export interface SearchState {
  query: string;
  regex: boolean;
  kind: CapabilityKind | '';
  result: CapabilitySearchResult | null;
  /** error is the backend's word on a query it refused (an invalid regex). */
  error: string;
  running: boolean;
}

/** emptySearch is the state with no query. */
export const emptySearch = (): SearchState => ({ query: '', regex: false, kind: '', result: null, error: '', running: false });

/** search is the search box's outcome. */
export const search = writable<SearchState>(emptySearch());

let searches = 0;

/** SearchLimit is how many hits the settings' search asks for. */
export const SearchLimit = 10;

/**
 * searchCatalog runs the model's search for a query; a blank query clears
 * the result. Only the newest request's answer is shown.
 */
export async function searchCatalog(query: string, opts: { regex: boolean; kind: CapabilityKind | ''; scope: CapabilityScope }): Promise<void> {
  const n = ++searches;
  if (!query.trim()) {
    search.set({ ...emptySearch(), query, regex: opts.regex, kind: opts.kind });
    return;
  }
  search.update((s) => ({ ...s, query, regex: opts.regex, kind: opts.kind, running: true }));
  try {
    const result = await api.searchCapabilities({
      query,
      regex: opts.regex,
      kind: opts.kind,
      limit: SearchLimit,
      sessionId: opts.scope.sessionId,
      mode: opts.scope.mode,
    });
    if (n === searches) {
      search.set({ query, regex: opts.regex, kind: opts.kind, result, error: '', running: false });
    }
  } catch (err) {
    if (n === searches) {
      search.set({ query, regex: opts.regex, kind: opts.kind, result: null, error: errorMessage(err), running: false });
    }
  }
}

/** clearSearch empties the search box's outcome (and drops answers on their way). */
export function clearSearch(): void {
  searches++;
  search.set(emptySearch());
}

/** saveDiscovery stores the deferral setting and reloads the catalog, whose states depend on it. */
export async function saveDiscovery(d: Discovery, scope: CapabilityScope): Promise<boolean> {
  const ok = await updatePreferences({ discovery: d });
  if (ok) {
    await loadCatalog(scope);
    const s = get(search);
    if (s.query.trim()) {
      // states shown with the hits depend on the setting too
      await searchCatalog(s.query, { regex: s.regex, kind: s.kind, scope });
    }
  }
  return ok;
}
