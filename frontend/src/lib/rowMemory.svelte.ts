// What a message remembers while it is out of the message list's window:
// the list renders only the rows near the view (lib/windowing.ts), so a
// row's components are made anew when it comes back into view, and a card
// the user opened, or an edit in progress, would be lost with them. The
// list provides one memory per open session; a component outside any list
// (a card in the approval dock) keeps its state only while it lives.
import { getContext, setContext } from 'svelte';

const contextKey = Symbol('rowMemory');

/** RowMemory holds the small UI states of rows by a name their component chooses ("tool-open:42"). */
export type RowMemory = Map<string, unknown>;

/** provideRowMemory makes memory the one the rows under the calling component remember into. */
export function provideRowMemory(memory: RowMemory): void {
  setContext(contextKey, memory);
}

/**
 * remembered is a state of the calling component, initialised from the
 * row memory under name() when it holds one and written back to it. Call
 * it while the component is being made, like $state; name is read then,
 * once (a row's component is made for one row).
 */
export function remembered<T>(nameOf: () => string, initial: T): { value: T } {
  const memory = getContext<RowMemory | undefined>(contextKey);
  const name = nameOf();
  let value = $state<T>(memory?.has(name) ? (memory.get(name) as T) : initial);
  return {
    get value() {
      return value;
    },
    set value(v: T) {
      value = v;
      memory?.set(name, v);
    },
  };
}
