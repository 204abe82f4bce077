// The model picker: every configured provider's models (ListModels, cached
// by the backend), the chat's current one, switching it (a model.changed in
// the log for an open session; the new chat's choice otherwise).
import { derived, get, writable } from 'svelte/store';
import * as api from '../api';
import type { ModelChoice, ModelList, ModelRef } from '../types';
import { activeId, draftModel, reloadView, view } from './chat';
import { sessions } from './sessions';
import { defaultProvider, settings } from './settings';
import { t, toast, toastError } from './ui';

/** modelList is the last listing, null until loaded. */
export const modelList = writable<ModelList | null>(null);

/** modelsLoading is true while a listing runs. */
export const modelsLoading = writable(false);

/** loadModels lists the models for the open session (or the new chat). */
export async function loadModels(refresh = false): Promise<void> {
  modelsLoading.set(true);
  try {
    const id = get(activeId);
    modelList.set(await api.listModels({ sessionId: id ?? undefined, refresh: refresh || undefined }));
  } catch (err) {
    toastError(err);
  } finally {
    modelsLoading.set(false);
  }
}

/** sameModel reports whether two references name the same model. */
export function sameModel(a: ModelRef | null | undefined, b: ModelRef | null | undefined): boolean {
  return Boolean(a && b && a.provider === b.provider && a.model === b.model);
}

/**
 * currentModel is the model the chat uses: the open session's, the new
 * chat's choice, what the listing said, or (before the list loads) the
 * default provider's model.
 */
export const currentModel = derived(
  [activeId, view, draftModel, modelList, settings],
  ([id, v, draft, list, st]): ModelRef | null => {
    if (id && v) {
      return v.session.model ? { provider: v.session.provider ?? '', model: v.session.model } : null;
    }
    const def = defaultProvider(st);
    return draft ?? list?.current ?? (def?.model ? { provider: def.name, model: def.model } : null);
  },
);

/** currentChoice is currentModel's entry in the list, when listed. */
export const currentChoice = derived([currentModel, modelList], ([m, list]): ModelChoice | null =>
  list?.models.find((c) => sameModel(c, m)) ?? null,
);

/** chooseModel switches the chat to a model; the next turn uses it. */
export async function chooseModel(choice: ModelRef): Promise<void> {
  const id = get(activeId);
  if (!id) {
    draftModel.set({ provider: choice.provider, model: choice.model });
    return;
  }
  try {
    const s = await api.setModel(id, choice.provider, choice.model);
    view.update((v) => (v && v.session.id === s.id ? { ...v, session: s } : v));
    sessions.update((list) => list.map((x) => (x.id === s.id ? s : x)));
    reloadView(); // the log's note of the switch
    toast(get(t)('model.switched', { model: choice.model }), { ms: 2500 });
    void loadModels();
  } catch (err) {
    toastError(err);
  }
}
