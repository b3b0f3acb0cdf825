/** The usage errors a command or the option parser throws (the pipeline prints them GNU's way). */

/** A usage error: the command prints it with GNU's "Try --help" line and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * A usage error found at a place in argv with GNU's own form: `tryHelp` false when GNU prints
 * no "Try --help" line (a value die()d on), `status` when it is not the command's usageStatus.
 */
export class OptionError extends UsageError {
  constructor(message: string, readonly tryHelp = true, readonly status?: number) {
    super(message);
    this.name = 'OptionError';
  }
}
