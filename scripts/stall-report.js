#!/usr/bin/env node
// Prints the worst event-loop stall of the hostile set: every test watched by test/support/watchdog.ts
// appends its worst stall to test-output/event-loop-stalls.jsonl. Lists each test over 100 ms.
const { readFileSync, existsSync } = require('node:fs');
const { join } = require('node:path');

const log = join(__dirname, '..', 'test-output', 'event-loop-stalls.jsonl');
if (!existsSync(log)) {
  console.log('event-loop watchdog: no watched test ran');
  process.exit(0);
}
const entries = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
const worst = entries.reduce((top, entry) => (entry.worst_ms > top.worst_ms ? entry : top), { worst_ms: 0 });
for (const entry of entries.filter((candidate) => candidate.worst_ms >= 100)) {
  console.log(`  over 100 ms: ${entry.worst_ms} ms in ${entry.suite} › ${entry.test}`);
}
console.log(`event-loop watchdog: worst stall ${worst.worst_ms} ms across ${entries.length} watched tests${worst.test ? ` (${worst.suite} › ${worst.test})` : ''}`);
