// md5sum: the shared digest command (src/command/digest.ts) with its algorithm fixed.
import { digestCommand } from '../../src/gnulib/digest.js';

export default digestCommand('md5sum', 'md5');
