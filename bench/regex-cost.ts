/**
 * The linear matcher's cost per character, lazy DFA against the Pike VM it replaced, and what a
 * match that uses the whole step budget costs on each (bench/lib/regex-cost.ts); one run, the two
 * engines interleaved.
 *
 *   npx tsx bench/regex-cost.ts [--rounds 7]
 */
import { budgetCost, regexCost, renderBudgetCost, renderRegexCost } from './lib/regex-cost.js';

const i = process.argv.indexOf('--rounds');
const rounds = i !== -1 ? Number(process.argv[i + 1]) : 7;
console.log(renderRegexCost(regexCost(rounds)));
console.log();
console.log(renderBudgetCost(budgetCost(Math.max(3, rounds >> 1))));
