// egrep: grep -E (GNU 3.8 installs egrep as a script running `grep -E`); ctx.name selects the matcher.
export { default } from './grep/index.js';
