/** The command contract: what a command declares and receives, the option parser, the byte streams. */
export { defineCommand } from './types.js';
export type { CommandDef, CommandContext, FlagSpec, FlagKind, Input, Output, Limits } from './types.js';
export { ParsedOptions, UsageError, parseArgs, helpText, versionText, infoAsked } from './options.js';
export { BrokenPipe, OutputLimitReached, CollectingOutput, Pipe, bufferInput, toBytes } from './io.js';
