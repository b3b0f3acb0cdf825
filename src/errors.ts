/** Error codes of the result envelope (DESIGN.md "Results and errors"). */
export const ERROR_CODES = [
  'FILE_NOT_FOUND', 'FILE_EXISTS', 'FILE_TOO_LARGE', 'PATH_ESCAPE', 'PERMISSION_DENIED',
  'COMMAND_FORBIDDEN', 'COMMAND_NOT_FOUND', 'METACHAR_REJECTED', 'QUOTA_EXCEEDED', 'FILE_LOCKED',
  'INVALID_ZONE', 'ZONE_READONLY', 'MISSING_PARAMETER', 'INVALID_ARGUMENT', 'GROUP_ACCESS_DENIED',
  'TIMEOUT', 'MEMORY_LIMIT', 'INVALID_ID', 'BLOCKED_PATH', 'NOT_A_DIRECTORY', 'IS_A_DIRECTORY',
  'CANCELLED', 'INTERNAL_ERROR', 'NO_SPACE', 'BUSY', 'LOCK_EXPIRED',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details: Record<string, unknown>;
  hint: string;
}

export interface SuccessEnvelope<T> { success: true; data: T; message: string }
export interface ErrorEnvelope { success: false; error: ErrorBody }
export type Envelope<T> = SuccessEnvelope<T> | ErrorEnvelope;

/** An error that becomes an error envelope. Messages never contain host paths. */
export class NoshError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  readonly hint: string;
  constructor(code: ErrorCode, message: string, hint = '', details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'NoshError';
    this.code = code;
    this.hint = hint;
    this.details = details;
  }
  toBody(): ErrorBody {
    return { code: this.code, message: this.message, details: this.details, hint: this.hint };
  }
}

export function ok<T>(data: T, message = 'ok'): SuccessEnvelope<T> {
  return { success: true, data, message };
}

export function fail(code: ErrorCode, message: string, hint = '', details: Record<string, unknown> = {}): ErrorEnvelope {
  return { success: false, error: { code, message, details, hint } };
}

/** ZONE_READONLY for a command or tool, worded for why: the zone itself, or the caller's role. */
export function readonlyError(what: string, policy: { readonlyRole?: string }): NoshError {
  return policy.readonlyRole
    ? new NoshError('ZONE_READONLY', `${what}: the ${policy.readonlyRole} role is read-only`,
      'This role can read and search but not change files; ask a developer-role caller to make the change.', { role: policy.readonlyRole })
    : new NoshError('ZONE_READONLY', `${what}: this zone is read-only`,
      'Copy the file to a writable zone (e.g. storage) and change it there.');
}
