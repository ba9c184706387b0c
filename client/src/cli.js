#!/usr/bin/env node
'use strict';
// Entry point: `node client <command> ...` from the repository root.
// Exit codes: 0 all inserted / ok; 1 some inserts failed or interrupted;
// 2 bad input or cannot connect.
const { parseOptions, usage, COMMANDS } = require('./options');
const { InputError } = require('./bench-schema');
const { ConnectError } = require('./commands/connect');
const { commands: databaseCommands } = require('./databases');
const { takePlanFlags, planEnvironment } = require('./plan-options');

const HANDLERS = {
  init: () => require('./commands/init').init,
  run: () => require('./commands/run').run,
  count: () => require('./commands/count').count,
  'server-stats': () => require('./commands/server-stats').serverStats,
  'wait-ready': () => require('./commands/wait-ready').waitReady,
  explain: () => require('./commands/explain').explain,
  settle: () => require('./commands/settle').settle,
};

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === 'validate-bench') return require('./commands/validate-bench').validateBench(rest);
  if (command === 'plan') return require('./commands/plan').plan(rest);
  if (command === 'bench-specs') return require('./commands/bench-specs').benchSpecs(rest);
  if (!command || command === '--help' || command === 'help') {
    console.log(usage());
    return command ? 0 : 2;
  }
  if (!COMMANDS[command]) {
    throw new InputError(`unknown command ${JSON.stringify(command)}; allowed: ${[...Object.keys(COMMANDS), 'validate-bench', 'plan', 'bench-specs'].join(', ')}`);
  }
  // --plan FILE [--phase ID] [--client I]: the settings from a run's plan.json (plan-options.js)
  const { flags, rest: words } = takePlanFlags(rest);
  const opts = parseOptions(command, words, planEnvironment(flags));
  // the client's own command, else a database's (databases/<name>/client/commands/, databases.js)
  return (HANDLERS[command] ? HANDLERS[command]() : databaseCommands()[command].run)(opts);
}

if (require.main === module) {
  // Exit explicitly: a command that has decided its outcome must not be held open by a socket
  // or timer left behind (a hung client would stall the lab's phase).
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      if (err instanceof InputError || err instanceof ConnectError) {
        console.error(`error: ${err.message}`);
        process.exit(2);
      }
      console.error(err && err.stack ? err.stack : err);
      process.exit(1);
    },
  );
}

module.exports = { main };
