// cksum: the shared digest command (src/command/digest.ts): POSIX CRC by default, -a ALGO.
import { digestCommand } from '../../src/gnulib/digest.js';

export default digestCommand('cksum', 'cksum');
