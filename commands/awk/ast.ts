/** awk's syntax tree, as the parser builds it and the compiler reads it. */

export type Expr =
  | { t: 'num'; v: number }
  | { t: 'str'; v: string }
  | { t: 're'; src: string }
  | { t: 'var'; name: string }
  | { t: 'field'; e: Expr }
  | { t: 'idx'; name: string; subs: Expr[] }
  | { t: 'assign'; op: string; lv: Expr; e: Expr }
  | { t: 'cond'; c: Expr; a: Expr; b: Expr }
  | { t: 'or' | 'and'; a: Expr; b: Expr }
  | { t: 'in'; subs: Expr[]; name: string }
  | { t: 'match'; neg: boolean; a: Expr; re: Expr }
  | { t: 'cmp'; op: string; a: Expr; b: Expr }
  | { t: 'cat'; a: Expr; b: Expr }
  | { t: 'bin'; op: string; a: Expr; b: Expr }
  | { t: 'not' | 'neg' | 'plus'; e: Expr }
  | { t: 'incdec'; op: '++' | '--'; pre: boolean; lv: Expr }
  | { t: 'call'; name: string; args: Expr[]; line: number }
  | { t: 'builtin'; name: string; args: Expr[]; paren: boolean }
  | { t: 'getline'; lv?: Expr; src?: Expr }
  | { t: 'group'; list: Expr[] };

export interface Redir { op: '>' | '>>'; e: Expr }

export type Stmt =
  | { t: 'expr'; e: Expr }
  | { t: 'print' | 'printf'; args: Expr[]; redir?: Redir }
  | { t: 'if'; c: Expr; a: Stmt; b?: Stmt }
  | { t: 'while'; c: Expr; body: Stmt }
  | { t: 'do'; body: Stmt; c: Expr }
  | { t: 'for'; init?: Stmt; c?: Expr; step?: Stmt; body: Stmt }
  | { t: 'forin'; v: Expr; arr: string; body: Stmt }
  | { t: 'block'; body: Stmt[] }
  | { t: 'next' | 'nextfile' | 'break' | 'continue' }
  | { t: 'exit' | 'return'; e?: Expr }
  | { t: 'delete'; name: string; subs?: Expr[] }
  | { t: 'switch'; e: Expr; cases: { v?: Expr; body: Stmt[] }[] };

export interface Item {
  kind: 'BEGIN' | 'END' | 'BEGINFILE' | 'ENDFILE' | 'main';
  loc?: string;
  pattern?: Expr;
  pattern2?: Expr;
  body?: Stmt[];
}

export interface FuncDef { name: string; params: string[]; body: Stmt[] }

export interface Program {
  items: Item[];
  funcs: Map<string, FuncDef>;
  /** Uses plain `getline` / `getline var` (reads the main input from inside an action). */
  mainGetline: boolean;
  /** Has an output redirection. */
  writes: boolean;
  /** gawk's non-fatal parse errors (exit 1 after parsing). */
  errors: string[];
}
