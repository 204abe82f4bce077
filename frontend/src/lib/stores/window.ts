// The window itself: its title names the open session, and closing it while
// tasks run asks first (the desktop window's close button; a browser tab
// asks with the browser's own question).
import { derived, get, writable } from 'svelte/store';
import * as api from '../api';
import { activeId, view } from './chat';
import { runningIds } from './sessions';
import { t } from './ui';

/** closeRequest lists the running tasks while the window asks whether to close. */
export const closeRequest = writable<string[] | null>(null);

/** windowTitle is "Session title — TinyElf", or "TinyElf" for a new chat. */
export const windowTitle = derived([activeId, view, t], ([id, v, tr]) => {
  const app = tr('app.name');
  const title = id && v ? v.session.title : '';
  return title ? tr('app.windowTitle', { title, app }) : app;
});

/** trackWindow keeps the title current and guards closing; the returned function stops it. */
export function trackWindow(): () => void {
  const stopTitle = windowTitle.subscribe((title) => api.setWindowTitle(title));
  const stopGuard = api.guardClose(
    (running) => closeRequest.set(running),
    () => get(runningIds).size > 0,
  );
  return () => {
    stopTitle();
    stopGuard();
  };
}

/** confirmClose closes the window although tasks run. */
export async function confirmClose(): Promise<void> {
  closeRequest.set(null);
  await api.confirmClose();
}
