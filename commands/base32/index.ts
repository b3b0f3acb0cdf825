// base32: the shared encoder/decoder (src/command/basenc.ts) with RFC 4648 base32.
import { basencCommand } from '../../src/gnulib/basenc.js';

export default basencCommand('base32', 'base32');
