import { defineCommand } from '../../src/command/index.js';

export default defineCommand({
  name: 'false',
  summary: 'Exit with a status code indicating failure.',
  usage: '',
  mutates: false,
  // GNU false ignores its arguments (only a lone --help or --version is special).
  parse: 'raw',
  flags: [],
  run: () => 1,
});
