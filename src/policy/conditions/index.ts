/** CEL conditions: compiled once per config, evaluated on one view per call, errors as values. */
export { type CompiledCondition, compileCondition } from './compile.js';
export { type ConditionResult, evaluate } from './evaluate.js';
export { checkGrant, checkRewriteGrant, type GrantDecision } from './grants.js';
export { MAX_AST_NODES, MAX_SOURCE_LENGTH } from './environment.js';
export { type ConditionView, VIEW_TYPES } from './view.js';
