export { defineCommand } from './types.js';
export type { CommandDef, CommandContext, FlagSpec, FlagKind, Input, Output, Limits } from './types.js';
export { ParsedOptions, UsageError, parseArgs, helpText, versionText, infoAsked } from './options.js';
export { quoteName, quoteNameColon, quoteAlways } from './quote.js';
export { reportFileError, inputOperands, openInput, readOperand } from './helpers.js';
export { loadCommand, loadedCommand, loadAllCommands, commandNames, hasCommand } from './registry.js';
export { BrokenPipe, OutputLimitReached, CollectingOutput, Pipe, bufferInput, toBytes } from './io.js';
