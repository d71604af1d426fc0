#!/usr/bin/env node
// Prints the worst event-loop stall of the hostile set: every test watched by test/support/watchdog.ts
// appends its worst stall to test-output/event-loop-stalls.jsonl, with the reference work's time at that moment and
// the ratio of the two (what the watchdog decides by). Lists each test over 100 ms.
const { readFileSync, existsSync } = require('node:fs');
const { join } = require('node:path');

const log = join(__dirname, '..', 'test-output', 'event-loop-stalls.jsonl');
if (!existsSync(log)) {
	console.log('event-loop watchdog: no watched test ran');
	process.exit(0);
}
const entries = readFileSync(log, 'utf8')
	.split('\n')
	.filter(Boolean)
	.map((line) => JSON.parse(line));
const worst = entries.reduce((top, entry) => (entry.worst_ms > top.worst_ms ? entry : top), {
	worst_ms: 0,
});
/**
 * Lines written before the watchdog decided by a ratio carry no baseline_ms.
 * @param {{ ratio?: number, baseline_ms?: number }} entry
 */
const ratioOf = (entry) =>
	entry.ratio === undefined
		? ''
		: ` (${entry.ratio} times the reference work's ${entry.baseline_ms} ms)`;
for (const entry of entries.filter((candidate) => candidate.worst_ms >= 100)) {
	console.log(
		`  over 100 ms: ${entry.worst_ms} ms${ratioOf(entry)} in ${entry.suite} › ${entry.test}`,
	);
}
const worstRatio = entries.reduce(
	(top, entry) => ((entry.ratio ?? 0) > (top.ratio ?? 0) ? entry : top),
	{ ratio: 0 },
);
if (worstRatio.test) {
	console.log(
		`event-loop watchdog: highest ratio ${worstRatio.ratio} (${worstRatio.suite} › ${worstRatio.test})`,
	);
}
console.log(
	`event-loop watchdog: worst stall ${worst.worst_ms} ms across ${entries.length} watched tests${worst.test ? ` (${worst.suite} › ${worst.test})` : ''}`,
);
