import type { OptionItem, OptionsView } from '../types.js';
import { collectValues } from './values.js';

/** Parsed flags, in the order given. Values of boolean flags are their `value` or 'true'. */
export class ParsedOptions implements OptionsView {
  readonly order: OptionItem[] = [];
  /** How many operands came before a '--' (absent: there was none): getopt's argv order, for join. */
  dashDash?: number;

  /**
   * Options and operands interleaved in argv order, as getopt's permutation met them (for the
   * few commands whose operands' meaning depends on the option before them: join -o).
   */
  *inOrder(operands: readonly string[]): Generator<OptionItem | { operand: string; afterDashDash: boolean }> {
    let j = 0;
    const op = (k: number) => ({ operand: operands[k]!, afterDashDash: this.dashDash !== undefined && k >= this.dashDash });
    for (const item of this.order) {
      for (; j < (item.operandsBefore ?? 0); j++) yield op(j);
      yield item;
    }
    for (; j < operands.length; j++) yield op(j);
  }

  /** The typed values (see Values): the last parsed value per key, arrays for `repeat` flags. */
  values(): Record<string, unknown> {
    return collectValues(this.order);
  }

  has(key: string): boolean {
    return this.order.some((o) => o.key === key);
  }
  /** Last value given for key. */
  get(key: string): string | undefined {
    for (let i = this.order.length - 1; i >= 0; i--) if (this.order[i]!.key === key) return this.order[i]!.value;
    return undefined;
  }
  all(key: string): string[] {
    return this.order.filter((o) => o.key === key).map((o) => o.value);
  }
  count(key: string): number {
    return this.order.filter((o) => o.key === key).length;
  }
  /** Which of the keys was given last (for mutually overriding flags like ls -t / -S). */
  lastOf(...keys: string[]): string | undefined {
    for (let i = this.order.length - 1; i >= 0; i--) if (keys.includes(this.order[i]!.key)) return this.order[i]!.key;
    return undefined;
  }
}
