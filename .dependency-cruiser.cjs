/**
 * The layering of nosh (see the README's Architecture section), checked by `npm run deps`.
 * A module may import only from its own layer or a layer below it; no cycles at all, type-only
 * imports included (tsPreCompilationDeps).
 *
 *   L9 transports  src/cli, src/rpc, src/mcp, src/http, src/index.ts
 *   L8 api         src/api, src/audit
 *   L7 pool        src/pool (main-thread scheduler; worker.ts is the worker entry)
 *   L6 services    src/zones and src/meta > src/tools > src/exec > src/versioning (each may import those after it)
 *   L5 registry    commands/index.ts
 *   L4 commands    commands/NAME/ (and, until they move beside their commands, src/sed, src/find)
 *   L3 gnulib      src/gnulib (shared GNU behaviour: it may use the contract's types and UsageError)
 *   L2 contract    src/command
 *   L1 vfs         src/vfs
 *   L0 base        src/runtime, src/errors.ts, src/config.ts, src/regex, src/parse, src/links, src/net
 *
 * bench/ sits above everything (it may import any layer); nothing imports bench/ or test/.
 */

const TRANSPORTS = '^src/(cli|rpc|mcp|http)/|^src/index\\.ts$';
const API = '^src/(api|audit)/';
const POOL = '^src/pool/';
const ZONES = '^src/(zones|meta)/';
const TOOLS = '^src/tools/';
const EXEC = '^src/exec/';
const VERSIONING = '^src/versioning/';
const REGISTRY = '^commands/index\\.ts$';
const COMMANDS = '^commands/|^src/(sed|find)/';
const CONTRACT = '^src/command/';
const GNULIB = '^src/gnulib/';
const VFS = '^src/vfs/';
const OUTSIDE = '^bench/|^test/';

const any = (...layers) => layers.join('|');

/** One rule per layer: what lies above it. */
const layer = (name, from, above, fromNot) => ({
  name: `layer-${name}`,
  severity: 'error',
  comment: `${name} may import only its own layer or the layers below it`,
  from: fromNot ? { path: from, pathNot: fromNot } : { path: from },
  to: { path: above },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles, type-only imports included.',
      from: {},
      to: { circular: true },
    },
    layer('api', API, any(TRANSPORTS, OUTSIDE)),
    layer('pool', POOL, any(API, TRANSPORTS, OUTSIDE)),
    layer('zones', ZONES, any(POOL, API, TRANSPORTS, OUTSIDE)),
    layer('tools', TOOLS, any(ZONES, POOL, API, TRANSPORTS, OUTSIDE)),
    layer('exec', EXEC, any(TOOLS, ZONES, POOL, API, TRANSPORTS, OUTSIDE)),
    layer('versioning', VERSIONING, any(REGISTRY, COMMANDS, EXEC, TOOLS, ZONES, POOL, API, TRANSPORTS, OUTSIDE)),
    layer('registry', REGISTRY, any(VERSIONING, EXEC, TOOLS, ZONES, POOL, API, TRANSPORTS, OUTSIDE)),
    layer('commands', COMMANDS, any(VERSIONING, REGISTRY, EXEC, TOOLS, ZONES, POOL, API, TRANSPORTS, OUTSIDE), REGISTRY),
    layer('gnulib', GNULIB, any(VERSIONING, COMMANDS, EXEC, TOOLS, ZONES, POOL, API, TRANSPORTS, OUTSIDE)),
    layer('contract', CONTRACT, any(VERSIONING, GNULIB, COMMANDS, EXEC, TOOLS, ZONES, POOL, API, TRANSPORTS, OUTSIDE)),
    layer('vfs', VFS, any(VERSIONING, GNULIB, CONTRACT, COMMANDS, EXEC, TOOLS, ZONES, POOL, API, TRANSPORTS, OUTSIDE)),
    layer('base', '^src/(runtime|regex|parse|links|net)/|^src/(errors|config|config-schema)\\.ts$',
      any(VERSIONING, VFS, GNULIB, CONTRACT, COMMANDS, EXEC, TOOLS, ZONES, POOL, API, TRANSPORTS, OUTSIDE)),
    {
      name: 'command-to-command',
      severity: 'error',
      comment: "A command imports another command's engine only through a shared lib below (src/gnulib, src/command).",
      from: { path: '^commands/([^/]+)/' },
      to: { path: '^commands/', pathNot: ['^commands/$1/', REGISTRY] },
    },
    {
      name: 'command-file-to-command',
      severity: 'error',
      comment: 'The same for commands still in one file (commands/NAME.ts).',
      from: { path: '^commands/([^/]+)\\.ts$', pathNot: REGISTRY },
      to: { path: '^commands/', pathNot: '^commands/$1\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
