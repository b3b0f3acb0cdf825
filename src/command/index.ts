/** The command contract: what a command declares and receives, the option parser, the byte streams. */
export { defineCommand } from './types.js';
export type { CommandDef, CommandContext, OptionsView, FlagSpec, FlagKind, ValueContext, ConflictSpec, ObsoleteItem, ObsoleteMatch, Input, Output, Limits, RepoAccess, RepoCommit, RepoEntry, RepoFileChange, RepoPerson } from './types.js';
export { ParsedOptions, UsageError, OptionError, parseArgs, helpText, versionText, infoAsked } from './options.js';
export type { Values, OptionItem } from './options.js';
export { BrokenPipe, OutputLimitReached, CollectingOutput, Pipe, bufferInput, toBytes } from './io.js';
