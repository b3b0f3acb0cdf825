// b2sum: the shared digest command (src/command/digest.ts) with BLAKE2b (-l).
import { digestCommand } from '../../src/gnulib/digest.js';

export default digestCommand('b2sum', 'blake2b');
