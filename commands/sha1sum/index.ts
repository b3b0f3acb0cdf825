// sha1sum: the shared digest command (src/command/digest.ts) with its algorithm fixed.
import { digestCommand } from '../../src/gnulib/digest.js';

export default digestCommand('sha1sum', 'sha1');
