import { fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { approvalMsg, sessionView, toolMsg } from '../test/fixtures';

vi.mock('../lib/api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../lib/api')>();
  return { ...actual, approve: vi.fn(async () => ({})), getSession: vi.fn(async () => sessionView()) };
});

import * as api from '../lib/api';
import { activeId, view } from '../lib/stores/chat';
import { language } from '../lib/stores/ui';
import ApprovalDock from './ApprovalDock.svelte';

const bash = JSON.stringify({ command: 'rm -rf build' });

beforeEach(() => {
  language.set('en');
  activeId.set('s1');
  view.set(
    sessionView({
      running: true,
      pending: ['call_1', 'call_2'],
      messages: [
        toolMsg(5, { name: 'Bash', arguments: bash, status: 'awaiting_approval' }),
        approvalMsg(6, { name: 'Bash', arguments: bash, warnings: ['Deletes recursively without a way back (rm -rf build).'], suggestion: 'rm' }),
        toolMsg(7, { callId: 'call_2', status: 'awaiting_approval' }),
        approvalMsg(8, { callId: 'call_2' }),
      ],
    }),
  );
});

afterEach(() => {
  vi.clearAllMocks();
});

describe('ApprovalDock', () => {
  it('shows the request, the guard warning, the suggested rule, the shortcuts and the queue', () => {
    render(ApprovalDock);
    expect(screen.getByRole('heading', { name: 'Allow Bash?' })).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toContain('Deletes recursively');
    expect(screen.getByText('rm -rf build')).toBeTruthy();
    // An older session's bare prefix is shown in Claude Code's notation.
    expect(screen.getByText('Allow always adds the rule “Bash(rm:*)”.')).toBeTruthy();
    expect(screen.getByText('1 of 2')).toBeTruthy();
    expect(screen.getByRole('button', { name: /Allow once/ }).getAttribute('aria-keyshortcuts')).toBe('Enter Control+Enter');
    expect(screen.getByRole('button', { name: /Allow always/ }).getAttribute('aria-keyshortcuts')).toBe('A');
    expect(screen.getByRole('button', { name: /Deny/ }).getAttribute('aria-keyshortcuts')).toBe('D Escape');
  });

  it('shows the exact rules of a compound command', () => {
    view.set(
      sessionView({
        running: true,
        pending: ['call_1'],
        messages: [approvalMsg(6, { name: 'Bash', arguments: JSON.stringify({ command: 'git status && npm test' }), suggestion: 'Bash(git status:*), Bash(npm test:*)' })],
      }),
    );
    render(ApprovalDock);
    expect(screen.getByText('Allow always adds the rules Bash(git status:*), Bash(npm test:*).')).toBeTruthy();
  });

  it('says why a held command is asked about every time', () => {
    const reason = 'The folders `rm -rf` gets come from `xargs` and cannot be checked before it runs.';
    view.set(
      sessionView({
        running: true,
        pending: ['call_1'],
        messages: [approvalMsg(6, { name: 'Bash', arguments: JSON.stringify({ command: 'ls | xargs rm -rf' }), warnings: [reason], held: true })],
      }),
    );
    render(ApprovalDock);
    expect(screen.getByRole('alert').textContent).toContain('The shell guard cannot check this command');
    expect(screen.getByRole('alert').textContent).toContain(reason);
    expect(screen.getByText(/asks about this command every time, even in auto mode/)).toBeTruthy();
  });

  it('says when no rule can allow a command', () => {
    view.set(
      sessionView({
        running: true,
        pending: ['call_1'],
        messages: [approvalMsg(6, { name: 'Bash', arguments: JSON.stringify({ command: 'echo x >> ~/.bashrc' }) })],
      }),
    );
    render(ApprovalDock);
    expect(screen.getByText(/No rule can allow exactly this command/)).toBeTruthy();
  });

  it('says why a redirection can only be allowed once, and offers no allow always (button or A key)', async () => {
    view.set(
      sessionView({
        running: true,
        pending: ['call_1'],
        messages: [
          approvalMsg(6, {
            name: 'Bash',
            arguments: JSON.stringify({ command: 'echo hi > out.txt' }),
            onceOnly: 'no rule may allow a command when it writes to the file out.txt',
          }),
        ],
      }),
    );
    render(ApprovalDock);
    expect(
      screen.getByText('This call can only be allowed once: no rule may allow a command when it writes to the file out.txt. No rule can allow it, so TinyElf will ask again next time.'),
    ).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Allow always/ })).toBeNull();
    expect(screen.getByText('Enter: allow once · D or Esc: deny')).toBeTruthy();
    await fireEvent.keyDown(window, { key: 'a' });
    expect(api.approve).not.toHaveBeenCalled();
    await fireEvent.click(screen.getByRole('button', { name: /Allow once/ }));
    await vi.waitFor(() => expect(api.approve).toHaveBeenCalledWith('s1', 'call_1', 'allow_once', undefined));
  });

  it('offers no allow always for a held command or one no rule covers, from older sessions too', () => {
    for (const a of [{ held: true, command: 'ls | xargs rm -rf' }, { held: false, command: 'echo x >> ~/.bashrc' }]) {
      view.set(
        sessionView({
          running: true,
          pending: ['call_1'],
          messages: [approvalMsg(6, { name: 'Bash', arguments: JSON.stringify({ command: a.command }), held: a.held })],
        }),
      );
      const { unmount } = render(ApprovalDock);
      expect(screen.queryByRole('button', { name: /Allow always/ })).toBeNull();
      expect(screen.getByText(/can only be allowed once/)).toBeTruthy();
      unmount();
    }
  });

  it('moves through the queue', async () => {
    render(ApprovalDock);
    await fireEvent.click(screen.getByRole('button', { name: 'Next request' }));
    expect(screen.getByRole('heading', { name: 'Allow Write?' })).toBeTruthy();
    expect(screen.getByText('2 of 2')).toBeTruthy();
  });

  it('allows always with A', async () => {
    render(ApprovalDock);
    await fireEvent.keyDown(window, { key: 'a' });
    await vi.waitFor(() => expect(api.approve).toHaveBeenCalledWith('s1', 'call_1', 'allow_always', undefined));
  });

  it('allows once with Ctrl+Enter even from the message box', async () => {
    render(ApprovalDock);
    const box = document.createElement('textarea');
    document.body.append(box);
    box.focus();
    await fireEvent.keyDown(box, { key: 'Enter', ctrlKey: true });
    await vi.waitFor(() => expect(api.approve).toHaveBeenCalledWith('s1', 'call_1', 'allow_once', undefined));
    box.remove();
  });

  it('does not take single letters typed into another field', async () => {
    render(ApprovalDock);
    const box = document.createElement('input');
    document.body.append(box);
    box.focus();
    await fireEvent.keyDown(box, { key: 'a' });
    expect(api.approve).not.toHaveBeenCalled();
    box.remove();
  });

  it('denies with a reason: D opens and focuses the reason, Enter sends it', async () => {
    render(ApprovalDock);
    await fireEvent.keyDown(window, { key: 'd' });
    const reason = (await screen.findByRole('textbox', { name: 'Reason (the agent reads it)' })) as HTMLInputElement;
    await vi.waitFor(() => expect(document.activeElement).toBe(reason));
    await fireEvent.input(reason, { target: { value: 'use git clean instead' } });
    await fireEvent.submit(reason.form!);
    await vi.waitFor(() => expect(api.approve).toHaveBeenCalledWith('s1', 'call_1', 'deny', 'use git clean instead'));
  });

  it('shows nothing when no request waits', () => {
    view.set(sessionView());
    render(ApprovalDock);
    expect(screen.queryByRole('heading')).toBeNull();
  });
});
