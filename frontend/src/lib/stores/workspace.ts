// Choosing the folder a new chat works in: the native dialog in the window,
// the ListFolders-based picker in a browser.
import { get } from 'svelte/store';
import * as api from '../api';
import type { FolderListing } from '../types';
import { appState } from './app';
import { activeId, draftWorkspace, newChat } from './chat';
import { folderPickerOpen, t, toastError } from './ui';

/** chooseWorkspace asks the user for a folder. */
export async function chooseWorkspace(): Promise<void> {
  if (!api.canPickFolderNatively()) {
    folderPickerOpen.set(true);
    return;
  }
  try {
    const start = get(draftWorkspace) || get(appState)?.home || '';
    const path = await api.pickFolder(get(t)('folder.nativeTitle'), start);
    if (path) {
      useWorkspace(path);
    }
  } catch (err) {
    toastError(err);
  }
}

/** useWorkspace makes path the folder of the next chat (leaving an open session). */
export function useWorkspace(path: string): void {
  draftWorkspace.set(path);
  if (get(activeId)) {
    newChat();
  }
}

/** listFolders lists a folder's sub-folders for the browser's picker ("" is home). */
export function listFolders(path: string): Promise<FolderListing> {
  return api.listFolders(path);
}
