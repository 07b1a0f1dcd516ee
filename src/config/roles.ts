// What a process does (FLIGHTSTATUS_ROLE, `serve --role`): kept apart from the schema so that the
// CLI can read `--role` without loading TypeBox (help and usage errors answer in a tenth of a second).
export const ROLES = ['all', 'api', 'worker'] as const;
export type Role = (typeof ROLES)[number];

/** Reads a role name (FLIGHTSTATUS_ROLE, `serve --role`); null when it is none of them. */
export function parseRole(text: string): Role | null {
  return (ROLES as readonly string[]).includes(text) ? (text as Role) : null;
}
