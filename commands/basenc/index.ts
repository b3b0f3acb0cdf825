import { defineCommand } from '../../src/command/index.js';
import { basencFlags, runBasenc } from '../../src/gnulib/basenc.js';

export default defineCommand({
  name: 'basenc',
  summary: 'basenc encode or decode FILE, or standard input, to standard output. With no FILE, or when FILE is -, read standard input.',
  usage: '[FILE]',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'enc', long: 'base64', value: 'base64', help: "same as 'base64' program (RFC4648 section 4)" },
    { key: 'enc', long: 'base64url', value: 'base64url', help: 'file- and url-safe base64 (RFC4648 section 5)' },
    { key: 'enc', long: 'base32', value: 'base32', help: "same as 'base32' program (RFC4648 section 6)" },
    { key: 'enc', long: 'base32hex', value: 'base32hex', help: 'extended hex alphabet base32 (RFC4648 section 7)' },
    { key: 'enc', long: 'base16', value: 'base16', help: 'hex encoding (RFC4648 section 8)' },
    { key: 'enc', long: 'base2msbf', value: 'base2msbf', help: 'bit string with most significant bit (msb) first' },
    { key: 'enc', long: 'base2lsbf', value: 'base2lsbf', help: 'bit string with least significant bit (lsb) first' },
    ...basencFlags(),
    { key: 'enc', long: 'z85', value: 'z85', help: 'ascii85-like encoding (ZeroMQ spec:32/Z85); when encoding, input length must be a multiple of 4; when decoding, input length must be a multiple of 5' },
  ],
  run: (ctx) => runBasenc(ctx, undefined),
});
