/**
 * xxd -r (huntype in xxd.c): hex pairs (or -b bits) back to bytes, byte by byte over the
 * streamed input. In the normal form each line's leading hex number is the offset to write
 * at; two garbage characters end a line's data. A seek backwards is refused on standard
 * output (a pipe), done in an output file.
 */
import { HEX_BITS, HEX_NORMAL, HEX_POSTSCRIPT } from './options.js';
import type { Sink } from './sink.js';

const hexDigit = (c: number) => (c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1);

export async function revert(src: { read(): Promise<Uint8Array | null> }, out: Sink, cols: number, hextype: number, baseOff: number): Promise<{ status: number; message: string } | undefined> {
  let ignGarb = true;
  let n1 = -1;
  let n2 = 0;
  let n3 = 0;
  let p = cols;
  let b = 0;
  let bcnt = 0;
  let haveOff = 0;
  let wantOff = 0;
  let skipLine = false;
  let bytes: number[] = [];
  const flushBytes = async () => {
    if (bytes.length) await out.write(Uint8Array.from(bytes));
    bytes = [];
  };
  for (let chunk = await src.read(); chunk; chunk = await src.read()) {
    for (let k = 0; k < chunk.length; k++) {
      const c = chunk[k]!;
      if (skipLine) {
        if (c !== 10) continue;
        skipLine = false;
        // the '\n' that ends a skipped line: handled as the loop's end-of-line below
        wantOff = hextype === HEX_NORMAL || hextype === HEX_BITS ? 0 : wantOff;
        p = cols;
        ignGarb = true;
        continue;
      }
      if (c === 13) continue;
      if (hextype === HEX_POSTSCRIPT && (c === 32 || c === 10 || c === 9)) continue;
      if (hextype === HEX_NORMAL || hextype === HEX_POSTSCRIPT) {
        n3 = n2;
        n2 = n1;
        n1 = hexDigit(c);
        if (n1 === -1 && ignGarb) continue;
      } else {
        n1 = hexDigit(c);
        if (n1 === -1 && ignGarb) continue;
        const bt = c === 48 ? 0 : c === 49 ? 1 : -1;
        if (bt !== -1) {
          b = ((b << 1) | bt) & 0xffffffff;
          bcnt++;
        }
      }
      ignGarb = false;
      if (hextype !== HEX_POSTSCRIPT && p >= cols) {
        if (n1 < 0) {
          p = 0;
          if (hextype === HEX_BITS) bcnt = 0;
          continue;
        }
        wantOff = wantOff * 16 + n1;
        continue;
      }
      if (baseOff + wantOff !== haveOff) {
        await flushBytes();
        if (out.seekable && baseOff + wantOff >= 0) {
          out.seek(baseOff + wantOff);
          haveOff = baseOff + wantOff;
        }
        if (baseOff + wantOff < haveOff) return { status: 5, message: 'Sorry, cannot seek backwards.' };
        for (; haveOff < baseOff + wantOff; haveOff++) bytes.push(0);
      }
      let toEol = false;
      if (hextype === HEX_NORMAL || hextype === HEX_POSTSCRIPT) {
        if (n2 >= 0 && n1 >= 0) {
          bytes.push((n2 << 4) | n1);
          haveOff++;
          wantOff++;
          n1 = -1;
          if (hextype === HEX_NORMAL && ++p >= cols) toEol = true;
        } else if (n1 < 0 && n2 < 0 && n3 < 0) toEol = true;
      } else if (bcnt === 8) {
        bytes.push(b & 0xff);
        haveOff++;
        wantOff++;
        b = 0;
        bcnt = 0;
        if (++p >= cols) toEol = true;
      }
      if (bytes.length >= 65536) await flushBytes();
      if (toEol && c !== 10) {
        skipLine = true;
        continue;
      }
      if (c === 10) {
        if (hextype === HEX_NORMAL || hextype === HEX_BITS) wantOff = 0;
        p = cols;
        ignGarb = true;
      }
    }
  }
  await flushBytes();
  return undefined;
}
