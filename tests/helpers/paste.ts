import { fireEvent } from '@testing-library/react';

/**
 * A paste as the browser does it: the paste event (which the field may answer by changing its
 * `maxLength`), then the field's value with the text in place of its selection, cut at its maxLength
 * in UTF-16 units.
 */
export function pasteAsBrowser(field: HTMLInputElement | HTMLTextAreaElement, text: string) {
  fireEvent.paste(field, { clipboardData: { getData: () => text } });
  const value = field.value.slice(0, field.selectionStart ?? 0) + text + field.value.slice(field.selectionEnd ?? 0);
  fireEvent.change(field, { target: { value: value.slice(0, field.maxLength) } });
}
