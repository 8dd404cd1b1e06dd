// @vitest-environment jsdom
/**
 * What was said before a switch of language does not stay on screen in the other one: the toasts up
 * go, and a form's errors are put away until the next submit says them again in the new language.
 */
import { act, renderHook } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { useFieldErrors } from '../../client/lib/errors';
import { initLanguage, useLanguage } from '../../client/lib/i18n';
import { toast, useToasts } from '../../client/lib/toast';

beforeEach(async () => {
  localStorage.clear();
  await initLanguage();
  toast.dismiss();
});

describe('a switch of language', () => {
  it('puts away the toasts that are up, and leaves them when the language stays', async () => {
    toast.error('Revisa los campos');
    await act(() => useLanguage.getState().setLanguage('es'));
    expect(useToasts.getState().toasts.map((item) => item.message)).toEqual(['Revisa los campos']);

    await act(() => useLanguage.getState().setLanguage('en'));
    expect(useToasts.getState().toasts).toEqual([]);
    toast.error('Check the fields');
    expect(useToasts.getState().toasts.map((item) => item.message)).toEqual(['Check the fields']);
  });

  it('puts away a form’s errors; the ones said after it show, and a field’s change still takes its own away', async () => {
    const { result } = renderHook(() => useFieldErrors());
    act(() => result.current[1]({ bio: ['Este campo no puede estar en blanco.'] }));
    expect(result.current[0]).toEqual({ bio: ['Este campo no puede estar en blanco.'] });

    await act(() => useLanguage.getState().setLanguage('en'));
    expect(result.current[0]).toEqual({});
    // An update of the errors from before the switch starts from none.
    act(() => result.current[1]((current) => ({ ...current, name: ['This field may not be blank.'] })));
    expect(result.current[0]).toEqual({ name: ['This field may not be blank.'] });

    act(() => result.current[1]({ name: ['This field may not be blank.'], bio: ['This field may not be blank.'] }));
    act(() => result.current[1](({ name: _, ...others }) => others));
    expect(result.current[0]).toEqual({ bio: ['This field may not be blank.'] });
    // Back to the first language: what was said in English goes too.
    await act(() => useLanguage.getState().setLanguage('es'));
    expect(result.current[0]).toEqual({});
  });
});
