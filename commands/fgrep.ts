// fgrep: grep -F (GNU 3.8 installs fgrep as a script running `grep -F`); ctx.name selects the matcher.
export { default } from './grep/index.js';
