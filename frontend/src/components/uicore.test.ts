// Vitest for issue 15's model picker, attachments, recovery, error kinds,
// notification settings and the window title.
import { fireEvent, render, screen } from '@testing-library/svelte';
import { get } from 'svelte/store';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { assistantMsg, session, sessionView, settingsView, userMsg } from '../test/fixtures';
import type { ModelList, NotificationSettings } from '../lib/types';

const models: ModelList = {
  models: [
    { provider: 'local', model: 'alpha-model', images: false, recent: true },
    { provider: 'local', model: 'test-model', images: false, default: true },
    { provider: 'local', model: 'gpt-4o', images: true },
  ],
  current: { provider: 'local', model: 'test-model' },
};

const notes: NotificationSettings = {
  enabled: true,
  turnFinished: true,
  approvalWaiting: true,
  backgroundDone: true,
  mcpFailed: true,
  sound: true,
  onlyUnfocused: true,
};

vi.mock('../lib/api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../lib/api')>();
  return {
    ...actual,
    listModels: vi.fn(async () => models),
    setModel: vi.fn(async (_id: string, provider: string, model: string) => session({ provider, model })),
    addAttachment: vi.fn(async (a: { name: string; data: string }) => ({
      id: 'b1',
      name: a.name,
      size: atob(a.data).length,
      kind: a.name.endsWith('.png') ? 'image' : 'text',
      mime: a.name.endsWith('.png') ? 'image/png' : 'text/plain',
    })),
    sendMessage: vi.fn(async () => ({})),
    retryTurn: vi.fn(async () => ({})),
    continueTurn: vi.fn(async () => ({})),
    regenerate: vi.fn(async () => session({ id: 's2' })),
    listSessions: vi.fn(async () => []),
    getSession: vi.fn(async () => sessionView()),
    getNotificationSettings: vi.fn(async () => notes),
    saveNotificationSettings: vi.fn(async (n: NotificationSettings) => n),
    testNotification: vi.fn(async () => ({ ok: true, message: 'Sent.' })),
    getSettings: vi.fn(async () => settingsView()),
    listMCPPrompts: vi.fn(async () => []),
  };
});

import * as api from '../lib/api';
import { attachFiles, pending, takeAttachments } from '../lib/stores/attachments';
import { activeId, draftModel, emptyLive, live, stoppedId, view } from '../lib/stores/chat';
import { modelList } from '../lib/stores/models';
import { settings } from '../lib/stores/settings';
import { language } from '../lib/stores/ui';
import { windowTitle } from '../lib/stores/window';
import Composer from './Composer.svelte';
import ErrorCard from './ErrorCard.svelte';
import ModelPicker from './ModelPicker.svelte';
import NotificationsSection from './settings/NotificationsSection.svelte';
import RecoveryBar from './RecoveryBar.svelte';
import { buildRows } from '../lib/rows';

beforeEach(() => {
  language.set('en');
  settings.set(settingsView());
  activeId.set('s1');
  view.set(sessionView());
  live.set(emptyLive());
  pending.set([]);
  modelList.set(null);
  draftModel.set(null);
  stoppedId.set(null);
});

afterEach(() => vi.clearAllMocks());

describe('ModelPicker', () => {
  it('lists recent models first and switches the open session', async () => {
    render(ModelPicker);
    await fireEvent.click(screen.getByRole('button', { name: /Model: test-model/ }));
    const options = await screen.findAllByRole('option');
    expect(options.map((o) => o.textContent?.trim().split(/\s+/)[0])).toEqual(['alpha-model', 'test-model', 'gpt-4o']);
    expect(screen.getByText('Recent')).toBeTruthy();
    expect(options[1].getAttribute('aria-selected')).toBe('true');
    expect(options[2].textContent).toContain('Takes images');
    await fireEvent.click(options[2]);
    expect(api.setModel).toHaveBeenCalledWith('s1', 'local', 'gpt-4o');
  });

  it('filters by typing and picks with Enter; a new chat keeps the choice', async () => {
    activeId.set(null);
    view.set(null);
    render(ModelPicker);
    await fireEvent.click(screen.getByRole('button', { name: /Model:/ }));
    await screen.findAllByRole('option');
    const search = screen.getByRole('combobox', { name: 'Search models' });
    await fireEvent.input(search, { target: { value: 'alpha' } });
    expect(screen.getAllByRole('option')).toHaveLength(1);
    await fireEvent.keyDown(search, { key: 'Enter' });
    expect(get(draftModel)).toEqual({ provider: 'local', model: 'alpha-model' });
    expect(api.setModel).not.toHaveBeenCalled();
  });
});

describe('attachments', () => {
  it('uploads files as chips and sends them with the message', async () => {
    render(Composer);
    await attachFiles([new File(['buy milk'], 'notes.txt', { type: 'text/plain' })]);
    expect(api.addAttachment).toHaveBeenCalledWith(expect.objectContaining({ sessionId: 's1', name: 'notes.txt', data: btoa('buy milk') }));
    expect(await screen.findByText('notes.txt')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Remove notes.txt' })).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: /Send/ }));
    await vi.waitFor(() =>
      expect(api.sendMessage).toHaveBeenCalledWith('s1', '', [expect.objectContaining({ id: 'b1', name: 'notes.txt' })]),
    );
    expect(get(pending)).toHaveLength(0);
  });

  it('says when the model takes no images', async () => {
    modelList.set(models);
    render(Composer);
    await attachFiles([new File(['\x89PNG'], 'shot.png', { type: 'image/png' })]);
    expect(await screen.findByText(/test-model does not take images/)).toBeTruthy();
  });

  it('shows why an upload failed and sends nothing of it', async () => {
    vi.mocked(api.addAttachment).mockRejectedValueOnce(new api.ApiError('invalid', 'big.bin is 12.0 MB; files up to 10.0 MB can be attached.'));
    render(Composer);
    await attachFiles([new File(['x'], 'big.bin')]);
    expect(await screen.findByText(/files up to 10.0 MB/)).toBeTruthy();
    expect(takeAttachments()).toEqual([]);
  });
});

describe('recovery', () => {
  it('names the real error kind and retries', async () => {
    const retry = vi.fn();
    render(ErrorCard, { kind: 'connection_refused', text: 'cannot reach http://127.0.0.1:9/v1: connection refused', retry });
    expect(screen.getByText(/connection refused\)/)).toBeTruthy();
    expect(screen.queryByText('The model service returned an error')).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: /Retry/ }));
    expect(retry).toHaveBeenCalled();
  });

  it('offers Regenerate after an answer and Continue after a stop', async () => {
    const rows = buildRows([userMsg(2, 'hi'), assistantMsg(3, 'hello')]);
    const { unmount } = render(RecoveryBar, { rows });
    expect(screen.queryByRole('button', { name: /Continue/ })).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: /Regenerate/ }));
    await vi.waitFor(() => expect(api.regenerate).toHaveBeenCalledWith('s1'));
    unmount();

    activeId.set('s1'); // Regenerate opened the branch
    view.set(sessionView());
    stoppedId.set('s1');
    render(RecoveryBar, { rows: buildRows([userMsg(2, 'hi'), { ...assistantMsg(3, 'hel'), partial: true }]) });
    await fireEvent.click(screen.getByRole('button', { name: /Continue/ }));
    await vi.waitFor(() => expect(api.continueTurn).toHaveBeenCalledWith('s1'));
  });
});

describe('notification settings', () => {
  it('saves each choice and sends a test', async () => {
    render(NotificationsSection);
    const mcp = await screen.findByRole('checkbox', { name: 'an MCP server fails' });
    await fireEvent.click(mcp);
    await vi.waitFor(() => expect(api.saveNotificationSettings).toHaveBeenCalledWith({ ...notes, mcpFailed: false }));
    await fireEvent.click(screen.getByRole('checkbox', { name: /Only when the TinyElf window is not focused/ }));
    await vi.waitFor(() => expect(api.saveNotificationSettings).toHaveBeenLastCalledWith(expect.objectContaining({ onlyUnfocused: false })));
    await fireEvent.click(screen.getByRole('button', { name: 'Send a test notification' }));
    expect(await screen.findByText('Sent.')).toBeTruthy();
  });
});

describe('window title', () => {
  it('names the open session', () => {
    expect(get(windowTitle)).toBe('Fix the tests — TinyElf');
    activeId.set(null);
    expect(get(windowTitle)).toBe('TinyElf');
  });
});
