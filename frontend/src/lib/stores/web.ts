// Settings → Web: the Web tools' switches and search providers, as the
// backend keeps them (keys never come back, only whether one is set).
import { writable } from 'svelte/store';
import * as api from '../api';
import type { SaveWebArgs, WebSearchTestResult, WebSettingsView } from '../types';
import { toastError } from './ui';

/** webSettings is the last WebSettingsView the backend returned, null until loaded. */
export const webSettings = writable<WebSettingsView | null>(null);

/** loadWebSettings fetches Settings → Web; errors become a toast. */
export async function loadWebSettings(): Promise<void> {
  try {
    webSettings.set(await api.getWebSettings());
  } catch (err) {
    toastError(err);
  }
}

/** saveWebSettings saves a change and reports whether it worked; errors become a toast. */
export async function saveWebSettings(args: SaveWebArgs): Promise<boolean> {
  try {
    webSettings.set(await api.saveWebSettings(args));
    return true;
  } catch (err) {
    toastError(err);
    return false;
  }
}

/** testWebSearch runs a real search with one provider; a failure to call comes back as a failed result. */
export async function testWebSearch(provider: string): Promise<WebSearchTestResult> {
  try {
    return await api.testWebSearch(provider);
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err), attempts: [], results: [] };
  }
}
