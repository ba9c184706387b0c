'use strict';
// Bad input (a bench file's key, a flag): the CLI prints its message and exits 2 before anything
// starts. Its own module so the workload files (workloads/*.workload.js), which bench-schema.js
// loads, can throw it without requiring bench-schema.js back.
class InputError extends Error {}

module.exports = { InputError };
