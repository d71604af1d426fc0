#!/usr/bin/env node
'use strict';
/**
 * What loading Agent Core's nodes costs a fresh n8n process (issue #39): in each of 5 fresh Node processes,
 * n8n-workflow is required first (n8n has it loaded already), then the time (process.hrtime) and resident memory
 * (process.memoryUsage().rss) around requiring the credentials and both node files from dist/, as n8n loads them
 * at start. Prints the medians and the count of the package's own modules loaded, beside the targets.
 *
 *   npx tsc -p tsconfig.build.json && node bench/node-load.js      (npm run bench:load)
 *
 * Targets (printed, never enforced): at most 50 ms and 5 MB above n8n-workflow alone.
 */
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..');
const PROCESSES = 5;
const TARGET_MS = 50;
const TARGET_MB = 5;
const { n8n } = require(path.join(ROOT, 'package.json'));

/** The child: everything it loads is fresh; it prints one JSON line. */
const CHILD = `
const path = require('node:path');
require('n8n-workflow');
const files = ${JSON.stringify([...n8n.credentials, ...n8n.nodes].map((file) => path.join(ROOT, file)))};
const before = new Set(Object.keys(require.cache));
const rss = process.memoryUsage().rss;
const start = process.hrtime.bigint();
for (const file of files) require(file);
const ms = Number(process.hrtime.bigint() - start) / 1e6;
const mb = (process.memoryUsage().rss - rss) / 1048576;
const dist = ${JSON.stringify(path.join(ROOT, 'dist') + path.sep)};
const loaded = Object.keys(require.cache).filter((file) => !before.has(file));
const own = loaded.filter((file) => file.startsWith(dist));
process.stdout.write(JSON.stringify({ ms, mb, own: own.length, other: loaded.length - own.length }));
`;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const runs = Array.from({ length: PROCESSES }, () =>
	JSON.parse(execFileSync(process.execPath, ['-e', CHILD], { cwd: ROOT, encoding: 'utf8' })),
);
const ms = median(runs.map((run) => run.ms));
const mb = median(runs.map((run) => run.mb));
const verdict = (value, target) => (value <= target ? 'within' : 'OVER');
const loadedFiles = `${n8n.nodes.length} nodes and ${n8n.credentials.length} credentials`;
console.log(
	`Loading Agent Core's ${loadedFiles} after n8n-workflow, median of ${PROCESSES} fresh processes:`,
);
console.log(`  time    ${ms.toFixed(1)} ms  (target ≤ ${TARGET_MS} ms: ${verdict(ms, TARGET_MS)})`);
console.log(`  memory  ${mb.toFixed(1)} MB  (target ≤ ${TARGET_MB} MB: ${verdict(mb, TARGET_MB)})`);
console.log(`  modules ${runs[0].own} of the package's own, ${runs[0].other} from node_modules`);
