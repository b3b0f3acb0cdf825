/**
 * Newline-delimited messages from byte chunks, with a cap on one line's size: an over-long
 * line is reported once (onOversize) and skipped up to its newline, never buffered whole.
 * Synchronous and callback-driven: a chunk holding whole lines (the usual case, one request
 * per write) is decoded straight from the chunk, with no copy, generator or promise per line.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversize: () => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl < 0 ? chunk.length : nl;
      if (!this.skipping) {
        this.size += end - start;
        if (this.size > this.maxLineBytes) {
          this.skipping = true;
          this.parts = [];
          this.onOversize();
        } else if (nl >= 0 && this.parts.length === 0) {
          this.emit(chunk.toString('utf8', start, end));
        } else if (end > start) {
          this.parts.push(chunk.subarray(start, end));
        }
      }
      if (nl < 0) break;
      if (!this.skipping && this.parts.length > 0) {
        this.emit(Buffer.concat(this.parts).toString('utf8'));
      }
      this.parts = [];
      this.size = 0;
      this.skipping = false;
      start = nl + 1;
    }
  }

  /** The input ended: a last line without a newline still counts. */
  end(): void {
    if (!this.skipping && this.parts.length > 0) this.emit(Buffer.concat(this.parts).toString('utf8'));
    this.parts = [];
    this.size = 0;
    this.skipping = false;
  }

  private emit(line: string): void {
    if (line.charCodeAt(line.length - 1) === 0x0d) line = line.slice(0, -1);
    if (line.trim() !== '') this.onLine(line);
  }
}
