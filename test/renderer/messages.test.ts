import { describe, expect, it } from 'vitest';
import { APPROVAL_ERROR_CODES, CONSOLE_ERROR_CODES, PEOPLE_ERROR_CODES, WORKSPACE_FAULT_CODES } from '../../shared/api';
import { ERROR_CODE_LIST, FAILED_CODE_LIST } from '../../shared/contract';
import { ERROR_MESSAGES, FAILED_MESSAGES, HOST_ERROR_CODES, describeFailedCode, describeFailure } from '../../renderer/src/messages/errors';

describe('human messages', () => {
  it('has a title and a next step for every API error code in the shared contract', () => {
    const table = ERROR_MESSAGES as Record<string, { title: string; next: string } | undefined>;
    const missing = ERROR_CODE_LIST.filter((code) => !table[code]?.title || !table[code]?.next);
    expect(missing).toEqual([]);
  });

  it('has a title and a next step for every console, host and team workspace error code', () => {
    const table = ERROR_MESSAGES as Record<string, { title: string; next: string } | undefined>;
    const missing = [...CONSOLE_ERROR_CODES, ...HOST_ERROR_CODES, ...WORKSPACE_FAULT_CODES, ...APPROVAL_ERROR_CODES, ...PEOPLE_ERROR_CODES].filter((code) => !table[code]?.title || !table[code]?.next);
    expect(missing).toEqual([]);
  });

  it('has a sentence for every failed_code', () => {
    const table = FAILED_MESSAGES as Record<string, string | undefined>;
    expect(FAILED_CODE_LIST.filter((code) => !table[code])).toEqual([]);
    expect(describeFailedCode('TRANASACTION_CANCELLED')).toMatch(/declined/);
  });

  it('holds no code that the contract does not know', () => {
    const known = new Set<string>([...ERROR_CODE_LIST, ...CONSOLE_ERROR_CODES, ...HOST_ERROR_CODES, ...WORKSPACE_FAULT_CODES, ...APPROVAL_ERROR_CODES, ...PEOPLE_ERROR_CODES]);
    expect(Object.keys(ERROR_MESSAGES).filter((code) => !known.has(code))).toEqual([]);
  });

  it('keeps the server message for a code it does not know', () => {
    expect(describeFailure({ code: 'SOMETHING_NEW', message: 'A new thing happened' }).title).toBe('A new thing happened');
  });
});
