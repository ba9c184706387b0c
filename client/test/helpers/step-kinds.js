'use strict';
// The binding's step kinds (docs/contracts.md §2a): every workload's operations are made of these
// (and of its workload file's steps). Read by the binding shape's two tests: without a server
// (client/test/unit/binding-shape.test.js) and on the real servers
// (client/test/integration/binding-conformance.test.js).
const STEP_KINDS = {
  // handle(): the driver's session connect opened, for a workload file's own statements
  connect: ['connect', 'close', 'reconnect', 'isConnectionLost', 'serverInfo', 'authenticatedIdentity', 'handle'],
  init: ['init', 'createIndexes'],
  put: ['prepareInserts', 'build', 'send', 'putDocument'],
  get: ['get'],
  patch: ['patch'],
  scan: ['scan'],
  readBack: ['readBack'],
  transaction: ['prepareTransactions', 'transaction', 'transactionIsolation'],
  namedQuery: ['query', 'explain', 'isUnsupported'],
  stats: ['serverStats'],
  // flush(tables), settle(tables): tables, the workload's own (its .workload.js `tables`)
  sizes: ['count', 'flush', 'settle'],
};

// Besides the step kinds, a binding may say what init does with LAYOUT (docs/contracts.md §2a).
const OPTIONAL = ['layoutNote'];

// What a workload file may take of a binding: a step kind's method, called.
const WORKLOAD_FILE_MAY_USE = new Set([...Object.values(STEP_KINDS).flat(), ...OPTIONAL]);

module.exports = { STEP_KINDS, OPTIONAL, WORKLOAD_FILE_MAY_USE };
