/**
 * "Use this desktop only" asks first, in plain words (issue 36 item 2;
 * docs/decisions/leaving-keeps-the-policy.md): the team's approval policy does not apply to this
 * desktop's own profiles, team profiles stay with the team, and the move is written in the
 * workspace's audit log (or, from the fault banner, cannot be now). English and French.
 */
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { applyLanguage } from '../../renderer/src/i18n';
import { LeaveWorkspaceDialog } from '../../renderer/src/components/LeaveWorkspaceDialog';

afterEach(cleanup);
afterAll(async () => {
  await applyLanguage('en');
});

describe('the leave dialog', () => {
  it('says the policy stops applying to this desktop’s own profiles, that team profiles stay, and that leaving is audited; leaves only on its button', async () => {
    await applyLanguage('en');
    const onConfirm = vi.fn();
    render(<LeaveWorkspaceDialog workspaceOpen onClose={() => undefined} onConfirm={onConfirm} />);
    const dialog = screen.getByRole('dialog', { name: 'Record on this desktop only?' });
    const text = dialog.textContent ?? '';
    expect(text).toContain('The team’s approval policy does not apply to this desktop’s own profiles: what you send with them from here goes at once, with no one to approve it.');
    expect(text).toContain('Team profiles stay with the team: none of them can be used from this desktop only');
    expect(text).toContain('Leaving is written in the team workspace’s audit log under your login before the console re-opens');
    expect(onConfirm).not.toHaveBeenCalled();
    within(dialog).getByRole('button', { name: 'Use this desktop only' }).click();
    expect(onConfirm).toHaveBeenCalledTimes(1);
  });

  it('from a workspace that is not open, says the move cannot be written now', async () => {
    await applyLanguage('en');
    render(<LeaveWorkspaceDialog workspaceOpen={false} onClose={() => undefined} onConfirm={() => undefined} />);
    const text = screen.getByRole('dialog').textContent ?? '';
    expect(text).toContain('The workspace is not open, so it cannot write this move in its audit log now');
    expect(text).not.toContain('Leaving is written');
  });

  it('in French', async () => {
    await applyLanguage('fr');
    render(<LeaveWorkspaceDialog workspaceOpen onClose={() => undefined} onConfirm={() => undefined} />);
    const text = screen.getByRole('dialog', { name: 'Enregistrer sur ce poste uniquement ?' }).textContent ?? '';
    expect(text).toContain('La politique d’approbation de l’équipe ne s’applique pas aux propres profils de ce poste');
    expect(text).toContain('Les profils d’équipe restent à l’équipe');
    expect(text).toContain('Le départ est inscrit dans le journal d’audit de l’espace d’équipe');
  });
});
