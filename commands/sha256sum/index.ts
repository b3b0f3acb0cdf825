// sha256sum: the shared digest command (src/command/digest.ts) with its algorithm fixed.
import { digestCommand } from '../../src/gnulib/digest.js';

export default digestCommand('sha256sum', 'sha256');
