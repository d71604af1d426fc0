// Starts each jest run with an empty stall log (see watchdog.ts), so the report covers this run only.
const { rmSync } = require('node:fs');
const { join } = require('node:path');

module.exports = async () => {
  rmSync(join(__dirname, '..', '..', 'test-output', 'event-loop-stalls.jsonl'), { force: true });
};
