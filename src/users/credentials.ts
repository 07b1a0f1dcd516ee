// What the dashboard's forms accept: an email, a password, a role; and the refusals they show, each
// beside the field it is about.

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;
export const EMAIL_MAX = 254;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const ROLES = ['owner', 'developer', 'billing'] as const;
export type Role = (typeof ROLES)[number];

/** Which field a refusal is about, so a form can show it next to that field. */
export type Field = 'email' | 'password' | 'accountName' | 'form';
export type UsersFailure =
  | { kind: 'invalid'; field: Field; message: string }
  | { kind: 'conflict'; field: Field; message: string }
  | { kind: 'throttled'; field: Field; message: string; retryAfterSeconds: number }
  | { kind: 'closed'; field: Field; message: string };
export type UsersResult<T> = { kind: 'ok'; value: T } | UsersFailure;

export function checkCredentials(email: string, password: string): UsersResult<string> {
  const normalised = normaliseEmail(email);
  if (emailProblem(normalised)) return { kind: 'invalid', field: 'email', message: emailProblem(normalised)! };
  const problem = passwordProblem(password);
  if (problem) return { kind: 'invalid', field: 'password', message: problem };
  return { kind: 'ok', value: normalised };
}

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/** What is wrong with a (normalised) email, or null. */
export const emailProblem = (email: string): string | null =>
  email.length > EMAIL_MAX || !EMAIL.test(email) ? 'Enter an email address like name@example.com' : null;

/** What is wrong with a new password, or null. */
export const passwordProblem = (password: string): string | null =>
  password.length < PASSWORD_MIN || password.length > PASSWORD_MAX
    ? `Password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`
    : null;

export const emailTaken = (): UsersFailure => ({
  kind: 'conflict',
  field: 'email',
  message: 'An account with this email already exists: sign in instead',
});
