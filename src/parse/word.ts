/** One word of a command line, as the tokenizer gives it to glob expansion. */
export interface Word {
  /** The literal word after quote removal and brace expansion. */
  value: string;
  /** Present only when the word has an unquoted glob char: the word as a glob pattern,
   *  with quoted or escaped glob-special chars backslash-escaped. */
  glob?: string;
}
