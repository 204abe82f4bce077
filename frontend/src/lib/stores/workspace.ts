// Choosing the folder a new chat works in: the folder picker (recent
// folders, the default workspace, a folder browser; in the window also the
// native dialog).
import { get, writable } from 'svelte/store';
import * as api from '../api';
import type { FolderListing } from '../types';
import { appState } from './app';
import { activeId, draftWorkspace, newChat } from './chat';
import { folderPickerOpen, t, toastError } from './ui';

/** recent are the folders of the latest sessions, newest first. */
export const recent = writable<string[]>([]);

/** chooseWorkspace opens the folder picker. */
export async function chooseWorkspace(): Promise<void> {
  folderPickerOpen.set(true);
}

/** loadRecent fetches the recent folders. */
export async function loadRecent(): Promise<void> {
  try {
    recent.set(await api.recentFolders());
  } catch {
    recent.set([]);
  }
}

/** canBrowseNatively reports whether the native folder dialog exists (the window). */
export const canBrowseNatively = () => api.canPickFolderNatively();

/** browseNatively shows the native folder dialog and returns the folder, "" when cancelled. */
export async function browseNatively(start: string): Promise<string> {
  try {
    return await api.pickFolder(get(t)('folder.nativeTitle'), start || get(appState)?.home || '');
  } catch (err) {
    toastError(err);
    return '';
  }
}

/** useWorkspace makes path the folder of the next chat (leaving an open session). */
export function useWorkspace(path: string): void {
  draftWorkspace.set(path);
  if (get(activeId)) {
    newChat();
  }
}

/**
 * listFolders lists a folder's sub-folders for the picker ("" is home);
 * nearest lists the nearest existing folder above a path not made yet.
 */
export function listFolders(path: string, showHidden = false, nearest = false): Promise<FolderListing> {
  return api.listFolders(path, showHidden, nearest);
}

/** folderName is the last part of a path, for chips and lists. */
export function folderName(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).pop() || path;
}
