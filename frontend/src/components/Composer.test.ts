import { fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sessionView, settingsView } from '../test/fixtures';

vi.mock('../lib/api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../lib/api')>();
  return {
    ...actual,
    sendMessage: vi.fn(async () => ({})),
    cancel: vi.fn(async () => ({})),
    getSession: vi.fn(async () => sessionView({ running: true })),
    listCommands: vi.fn(async () => ({
      commands: [
        { name: 'mcp__github__review', kind: 'mcp', source: 'mcp', server: 'github', description: 'Review a pull request' },
        { name: 'mcp__files__summary', kind: 'mcp', source: 'mcp', server: 'files' },
        { name: 'mcp__fake__greet', kind: 'mcp', source: 'mcp', server: 'fake', description: 'Greets someone.', arguments: [{ name: 'name', required: true }, { name: 'style' }] },
        { name: 'release-notes', kind: 'markdown', source: 'project', argumentHint: 'VERSION', description: 'Draft release notes' },
        { name: 'test-fix', kind: 'skill', source: 'builtin', argumentHint: '[test name or path]', description: 'Fix failing tests' },
      ],
    })),
  };
});

import * as api from '../lib/api';
import { activeId, live, emptyLive, view } from '../lib/stores/chat';
import { settings } from '../lib/stores/settings';
import { language } from '../lib/stores/ui';
import Composer from './Composer.svelte';

beforeEach(() => {
  language.set('en');
  settings.set(settingsView());
  activeId.set('s1');
  view.set(sessionView());
  live.set(emptyLive());
});

afterEach(() => vi.clearAllMocks());

describe('Composer', () => {
  it('sends with Enter and keeps Shift+Enter for a new line', async () => {
    render(Composer);
    const box = screen.getByRole('textbox', { name: 'Message' });
    await fireEvent.input(box, { target: { value: 'first line' } });
    await fireEvent.keyDown(box, { key: 'Enter', shiftKey: true });
    expect(api.sendMessage).not.toHaveBeenCalled();
    await fireEvent.keyDown(box, { key: 'Enter' });
    await vi.waitFor(() => expect(api.sendMessage).toHaveBeenCalledWith('s1', 'first line', []));
  });

  it('does not send while an input method is composing', async () => {
    render(Composer);
    const box = screen.getByRole('textbox', { name: 'Message' });
    await fireEvent.input(box, { target: { value: 'にほんご' } });
    await fireEvent.keyDown(box, { key: 'Enter', isComposing: true });
    expect(api.sendMessage).not.toHaveBeenCalled();
  });

  it('turns Send into Stop while the agent works', async () => {
    view.set(sessionView({ running: true }));
    render(Composer);
    expect(screen.queryByRole('button', { name: /Send/ })).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: /Stop/ }));
    expect(api.cancel).toHaveBeenCalledWith('s1');
    expect(screen.getByText('TinyElf is working. Press Ctrl+. to stop it.')).toBeTruthy();
  });

  it('lists every kind of command with its source and hint', async () => {
    render(Composer);
    const box = screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement;
    await fireEvent.input(box, { target: { value: '/' } });
    const list = await screen.findByRole('listbox', { name: 'Commands' });
    const items = Array.from(list.querySelectorAll('li')).map((li) => li.textContent ?? '');
    expect(items.find((x) => x.includes('/release-notes'))).toMatch(/VERSION.*Draft release notes.*this folder/);
    expect(items.find((x) => x.includes('/test-fix'))).toMatch(/\[test name or path\].*TinyElf/);
    expect(items.find((x) => x.includes('Review'))).toContain('MCP');
    expect(api.listCommands).toHaveBeenCalledWith({ sessionId: 's1' });
    await fireEvent.input(box, { target: { value: '/test' } });
    await fireEvent.keyDown(box, { key: 'Enter' });
    expect(box.value).toBe('/test-fix ');
  });

  it('completes MCP prompts as slash commands', async () => {
    render(Composer);
    const box = screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement;
    await fireEvent.input(box, { target: { value: '/rev' } });
    const list = await screen.findByRole('listbox', { name: 'Commands' });
    expect(list.textContent).toContain('Review');
    expect(list.textContent).not.toContain('mcp__github__review'); // its title, not its wire name
    expect(list.textContent).not.toContain('summary');
    await fireEvent.keyDown(box, { key: 'Tab' });
    expect(box.value).toBe('/mcp__github__review ');
  });

  it('opens a form for an MCP prompt with arguments and sends the filled-in command', async () => {
    render(Composer);
    const box = screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement;
    await fireEvent.input(box, { target: { value: '/greet' } });
    await screen.findByRole('listbox', { name: 'Commands' });
    await fireEvent.keyDown(box, { key: 'Enter' });
    const form = await screen.findByRole('form', { name: 'Greet' });
    const name = form.querySelector('input') as HTMLInputElement;
    await fireEvent.input(name, { target: { value: 'Ada Lovelace' } });
    await fireEvent.submit(form);
    await vi.waitFor(() => expect(api.sendMessage).toHaveBeenCalledWith('s1', '/mcp__fake__greet name="Ada Lovelace"', []));
  });

  it('asks for a folder before a new chat can start', () => {
    activeId.set(null);
    view.set(null);
    settings.set(settingsView({ lastWorkspace: '' }));
    render(Composer);
    expect((screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement).disabled).toBe(true);
    expect(screen.getByText('Choose a folder to start.')).toBeTruthy();
  });
});
