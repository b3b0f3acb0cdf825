import { NoshError } from '../errors.js';

const ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Ids of users, groups, conversations and sessions become folder names, so they are checked,
 * never sanitised into a different id: [A-Za-z0-9._-], 1..128 characters, no leading dot, no '..'.
 */
export function validateId(kind: string, id: unknown): string {
  if (typeof id !== 'string' || !ID.test(id) || id.startsWith('.') || id.includes('..')) {
    const shown = typeof id === 'string' ? JSON.stringify(id.length > 40 ? id.slice(0, 40) + '...' : id) : typeof id;
    throw new NoshError('INVALID_ID', `invalid ${kind} id ${shown}`,
      `A ${kind} id is 1 to 128 characters of A-Z a-z 0-9 . _ -, not starting with a dot and without '..'.`, { kind });
  }
  return id;
}
