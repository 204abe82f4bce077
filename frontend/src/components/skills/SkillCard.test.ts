import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import { language } from '../../lib/stores/ui';
import type { ToolCallView } from '../../lib/types';
import SkillCard from './SkillCard.svelte';

const tool: ToolCallView = {
  callId: 'k',
  name: 'read_skill',
  arguments: '{"name":"deploy"}',
  status: 'done',
  result: '<skill_content name="deploy">Run git status.</skill_content>',
  meta: {
    skill: 'deploy',
    capabilityLoaded: { id: 'skill__deploy', kind: 'skill', source: 'project' },
    files: ['scripts/deploy.sh', 'references/env.md'],
    allowedTools: [{ raw: 'Bash(git:*)', tool: 'Bash', kind: 'prefix', command: 'git' }],
  },
};

beforeEach(() => language.set('en'));

describe('SkillCard', { timeout: 20_000 }, () => {
  it('shows the loaded skill, its source, files and grants, and opens to the call', async () => {
    render(SkillCard, { tool, seq: 4, running: false });
    const head = screen.getByRole('button', { name: /Skill deploy loaded/ });
    expect(head.textContent).toMatch(/this folder.*2 files.*pre-approves Bash\(git:\*\) this turn/s);
    await fireEvent.click(head);
    expect(head.getAttribute('aria-expanded')).toBe('true');
    expect(screen.getByRole('article')).toBeTruthy();
  });
});
