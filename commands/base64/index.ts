// base64: the shared encoder/decoder (src/command/basenc.ts) with RFC 4648 base64.
import { basencCommand } from '../../src/gnulib/basenc.js';

export default basencCommand('base64', 'base64');
