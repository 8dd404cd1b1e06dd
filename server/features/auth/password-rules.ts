import { dictionary } from '@zxcvbn-ts/language-common';
import { type ServerText, serverText } from '../../../shared/i18n/server-messages';
import { RegisterInput } from '../../../shared/schemas/auth';
import { textIssue } from '../../../shared/schemas/zod';

export const MIN_PASSWORD_LENGTH = 8;
const MAX_SIMILARITY = 0.7;

let commonPasswords: Set<string> | null = null;
const isCommon = (password: string) => {
  commonPasswords ??= new Set(dictionary['passwords-common'] as string[]);
  return commonPasswords.has(password.toLowerCase());
};

/** Python's SequenceMatcher-like ratio, from the longest common subsequence: 2·M / (|a| + |b|). */
function similarity(a: string, b: string): number {
  if (!a || !b) return 0;
  const x = a.slice(0, 128);
  const y = b.slice(0, 128);
  let previous = new Array<number>(y.length + 1).fill(0);
  for (const cx of x) {
    const current = [0];
    for (let j = 1; j <= y.length; j++) {
      current[j] = cx === y[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, current[j - 1]!);
    }
    previous = current;
  }
  return (2 * previous[y.length]!) / (x.length + y.length);
}

/** The checks of Django's default password validators, with their messages. */
export function passwordProblems(
  password: string,
  attributes: { email: string; first_name: string; last_name: string },
): ServerText[] {
  const problems: ServerText[] = [];
  const lower = password.toLowerCase();
  const similarTo = { email: 'password_like_email', first_name: 'password_like_first_name', last_name: 'password_like_last_name' } as const;
  for (const [key, code] of Object.entries(similarTo) as [keyof typeof similarTo, (typeof similarTo)[keyof typeof similarTo]][]) {
    const value = attributes[key].toLowerCase();
    const parts = [value, ...value.split(/\W+/)].filter((part) => part.length > 2);
    if (parts.some((part) => similarity(lower, part) >= MAX_SIMILARITY)) {
      problems.push(serverText(code));
      break;
    }
  }
  if (password.length < MIN_PASSWORD_LENGTH) problems.push(serverText('password_short', { min: MIN_PASSWORD_LENGTH }));
  if (isCommon(password)) problems.push(serverText('password_common'));
  if (/^\d+$/.test(password)) problems.push(serverText('password_numeric'));
  return problems;
}

export const PASSWORDS_DIFFER = serverText('passwords_differ');

const text = (value: unknown) => (typeof value === 'string' ? value : '');
const validPassword = (value: unknown) => RegisterInput.shape.password.safeParse(value).success;

/**
 * The register body with the password rules, checked even when other fields are bad so that a
 * client sees every problem at once. Without `when`, zod would skip this refinement as
 * soon as any field failed.
 */
export const RegisterBody = RegisterInput.superRefine(
  (input, ctx) => {
    const body = input as Record<string, unknown>;
    if (!validPassword(body.password)) return;
    const password = text(body.password);
    const attributes = { email: text(body.username), first_name: text(body.first_name), last_name: text(body.last_name) };
    for (const text of passwordProblems(password, attributes)) {
      ctx.addIssue(textIssue(['password'], text));
    }
    if (validPassword(body.password2) && body.password2 !== password) {
      ctx.addIssue(textIssue(['password2'], PASSWORDS_DIFFER));
    }
  },
  {
    when: (payload) =>
      typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value),
  },
);
