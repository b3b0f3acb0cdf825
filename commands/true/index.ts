import { defineCommand } from '../../src/command/index.js';

export default defineCommand({
  name: 'true',
  summary: 'Exit with a status code indicating success.',
  usage: '',
  mutates: false,
  // GNU true ignores its arguments (only a lone --help or --version is special).
  parse: 'raw',
  flags: [],
  run: () => 0,
});
