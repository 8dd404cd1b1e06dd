import { z } from 'zod';

/**
 * The one configured zod instance. Messages follow Django REST framework's wording, because the
 * client shows them per field exactly as the server writes them (API.md's error envelope).
 */
z.config({
  customError: (issue) => {
    switch (issue.code) {
      case 'invalid_type':
        if (issue.input === undefined) return 'This field is required.';
        if (issue.input === null) return 'This field may not be null.';
        if (issue.expected === 'string') return 'Not a valid string.';
        if (issue.expected === 'number' || issue.expected === 'int') return 'A valid integer is required.';
        if (issue.expected === 'boolean') return 'Must be a valid boolean.';
        if (issue.expected === 'array') return 'Expected a list of items.';
        if (issue.expected === 'object') return 'Invalid data. Expected a dictionary.';
        return 'Invalid value.';
      case 'too_small':
        if (issue.origin === 'string') {
          return issue.minimum === 1
            ? 'This field may not be blank.'
            : `Ensure this field has at least ${issue.minimum} characters.`;
        }
        if (issue.origin === 'array') {
          return issue.minimum === 1 ? 'This list may not be empty.' : `Ensure this list has at least ${issue.minimum} items.`;
        }
        return `Ensure this value is greater than or equal to ${issue.minimum}.`;
      case 'too_big':
        if (issue.origin === 'string') return `Ensure this field has no more than ${issue.maximum} characters.`;
        if (issue.origin === 'array') return `Ensure this list has no more than ${issue.maximum} items.`;
        return `Ensure this value is less than or equal to ${issue.maximum}.`;
      case 'invalid_value':
        // A missing enum field is missing, not a bad choice.
        if (issue.input === undefined) return 'This field is required.';
        if (issue.input === null) return 'This field may not be null.';
        return `"${String(issue.input)}" is not a valid choice.`;
      case 'invalid_format':
        if (issue.format === 'email') return 'Enter a valid email address.';
        if (issue.format === 'uuid') return 'Must be a valid UUID.';
        return 'Invalid format.';
      default:
        return undefined;
    }
  },
});

export { z };
