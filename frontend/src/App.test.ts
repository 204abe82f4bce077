import { render, screen } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import App from './App.svelte';
import { language, modelConnected, settingsOpen } from './lib/stores';

beforeEach(() => {
  language.set('en');
  modelConnected.set(false);
  settingsOpen.set(false);
  window.go = { main: { App: { Version: () => Promise.resolve('9.9.9') } } };
});

afterEach(() => {
  delete window.go;
  vi.unstubAllGlobals();
});

describe('App shell', () => {
  it('renders its landmarks', () => {
    render(App);
    expect(screen.getByRole('banner')).toBeTruthy();
    expect(screen.getByRole('navigation', { name: 'Sessions' })).toBeTruthy();
    expect(screen.getByRole('main', { name: 'Chat' })).toBeTruthy();
    expect(screen.getByRole('form', { name: 'Message' })).toBeTruthy();
  });

  it('labels every control', () => {
    render(App);
    expect(screen.getByRole('button', { name: 'New chat' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Settings' })).toBeTruthy();
    expect(screen.getByRole('combobox', { name: 'Permission mode' })).toBeTruthy();
    expect(screen.getByRole('textbox', { name: 'Message' })).toBeTruthy();
  });

  it('keeps the composer disabled until a model is connected', () => {
    render(App);
    const input = screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement;
    const send = screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement;
    expect(input.disabled).toBe(true);
    expect(send.disabled).toBe(true);
    expect(input.getAttribute('aria-describedby')).toBeTruthy();
    expect(screen.getByText('Connect a model in Settings to start.')).toBeTruthy();
  });

  it('shows the backend version', async () => {
    render(App);
    expect(await screen.findByText('version 9.9.9')).toBeTruthy();
  });

  it('speaks Japanese when the language is Japanese', () => {
    language.set('ja');
    render(App);
    expect(screen.getByRole('navigation', { name: 'セッション' })).toBeTruthy();
    expect(screen.getByRole('button', { name: '新しいチャット' })).toBeTruthy();
    expect(document.documentElement.lang).toBe('ja');
  });

  it('opens and closes the settings panel', async () => {
    render(App);
    screen.getByRole('button', { name: 'Settings' }).click();
    const dialog = await screen.findByRole('dialog', { name: 'Settings' });
    expect(dialog).toBeTruthy();
    screen.getByRole('button', { name: 'Close' }).click();
    await vi.waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });
});
