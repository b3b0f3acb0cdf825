// sha512sum: the shared digest command (src/command/digest.ts) with its algorithm fixed.
import { digestCommand } from '../../src/gnulib/digest.js';

export default digestCommand('sha512sum', 'sha512');
