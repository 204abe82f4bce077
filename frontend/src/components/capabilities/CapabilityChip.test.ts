import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { get } from 'svelte/store';
import { beforeEach, describe, expect, it } from 'vitest';
import { assistantMsg, baselineChange, searchChange, sessionView, userMsg } from '../../test/fixtures';
import { live, emptyLive, view } from '../../lib/stores/chat';
import { capabilityChangeOpen, contextDetailsOpen, language, settingsOpen, settingsSection } from '../../lib/stores/ui';
import ContextDetails from '../ContextDetails.svelte';
import ContextGauge from '../ContextGauge.svelte';
import MessageList from '../MessageList.svelte';
import CapabilityChangeDialog from './CapabilityChangeDialog.svelte';

beforeEach(() => {
  language.set('en');
  capabilityChangeOpen.set(null);
  contextDetailsOpen.set(false);
  settingsOpen.set(false);
  live.set(emptyLive());
});

describe('capability chips in the chat', () => {
  it('shows a chip for a change, a card for a loaded skill, and nothing for the first set', async () => {
    view.set(
      sessionView({
        messages: [
          userMsg(2, 'open a PR'),
          baselineChange(3),
          searchChange(7),
          { seq: 9, kind: 'loaded', time: '', loaded: { id: 'skill__release', kind: 'skill', name: 'release', source: 'skill:project' } },
          assistantMsg(10, 'Opened it.'),
        ],
      }),
    );
    render(MessageList);
    const chips = document.querySelectorAll('.cap-chip');
    expect(chips.length).toBe(1);
    expect(chips[0].textContent).toContain('+2 tools: found by ToolSearch "pull request"');
    expect(screen.getByText('Skill loaded: release')).toBeTruthy();
    expect(screen.getByText('from Skills: project')).toBeTruthy();
    await fireEvent.click(chips[0]);
    expect(get(capabilityChangeOpen)?.seq).toBe(7);
  });

  it('opens the change: grouped items, each with its move and reason', () => {
    capabilityChangeOpen.set(searchChange(7));
    render(CapabilityChangeDialog);
    const dialog = screen.getByRole('dialog', { name: 'What the model sees changed' });
    expect(within(dialog).getByText('After this: 12 tools sent with their definitions, 150 in the index.')).toBeTruthy();
    const group = dialog.querySelector('[data-group="added"]') as HTMLElement;
    expect(group.textContent).toContain('Now sent with their definitions');
    expect(within(group).getByText('mcp__github__create_pull_request')).toBeTruthy();
    expect(within(group).getAllByText('Deferred → Visible').length).toBe(2);
    expect(within(group).getAllByText('found by ToolSearch "pull request"').length).toBe(2);
  });

  it('folds a large group and names the first set', () => {
    const first = baselineChange(3);
    first.capabilities!.items.push(
      ...Array.from({ length: 20 }, (_, i) => ({ id: `t${i}`, name: `mcp__big__t${i}`, kind: 'tool', change: 'added' as const, to: 'deferred' as const, reason: 'deferred to the index' })),
    );
    capabilityChangeOpen.set(first);
    render(CapabilityChangeDialog);
    expect(screen.getByRole('dialog', { name: 'The session’s first tool set' })).toBeTruthy();
    expect((document.querySelector('[data-group="indexAdded"]') as HTMLDetailsElement).open).toBe(false);
    expect((document.querySelector('[data-group="added"]') as HTMLDetailsElement).open).toBe(true);
  });
});

describe('the context gauge', () => {
  it('tells the tool share and opens the details', async () => {
    view.set(sessionView({ contextWindow: 100_000, contextUsed: 20_000, toolTokens: 4_000, indexTokens: 1_000, toolsSent: 12, toolsDeferred: 150 }));
    render(ContextGauge);
    const gauge = screen.getByRole('meter', { name: 'Context used' });
    expect(gauge.getAttribute('aria-valuetext')).toBe('20% of 100K tokens 5% of the window goes to tool definitions and the index.');
    expect(gauge.querySelector('circle.tools')).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Context details' }));
    expect(get(contextDetailsOpen)).toBe(true);
  });

  it('details: the figures, the first set and Settings → Capabilities', async () => {
    view.set(
      sessionView({ contextWindow: 100_000, contextUsed: 20_000, toolTokens: 4_000, indexTokens: 1_000, toolsSent: 12, toolsDeferred: 150, messages: [baselineChange(3)] }),
    );
    contextDetailsOpen.set(true);
    render(ContextDetails);
    expect(screen.getByText('Tool definitions: about 4,000 tokens (12 tools)')).toBeTruthy();
    expect(screen.getByText('Tool index: about 1,000 tokens (150 deferred tools)')).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Show the first tool set' }));
    expect(get(contextDetailsOpen)).toBe(false);
    expect(get(capabilityChangeOpen)?.capabilities?.baseline).toBe(true);
  });

  it('details before any model call', async () => {
    view.set(sessionView({ contextWindow: 100_000, contextUsed: 0 }));
    contextDetailsOpen.set(true);
    render(ContextDetails);
    expect(screen.getByText('No model call yet in this session.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Show the first tool set' })).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: 'Open Settings → Capabilities' }));
    expect(get(settingsOpen)).toBe(true);
    expect(get(settingsSection)).toBe('capabilities');
  });
});
