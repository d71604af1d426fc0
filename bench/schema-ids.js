#!/usr/bin/env node
/**
 * Memory of schemas with distinct `$id`s (issue #48): compiles N schemas (default 10,000), each with its own
 * root `$id`, a nested `$id` and, every other one, a 2020-12 `$anchor`, as 10,000 runs whose output_schema or
 * tool schemas carry ids would; prints heapUsed after a full collection at the start and at each tenth, with
 * how many compiled schemas the engine keeps and how many schema objects and ids ajv itself holds.
 *
 * Run after `npm run build` (or `npx tsc -p tsconfig.build.json`):  node --expose-gc bench/schema-ids.js [--count 10000] [--dist DIR]
 * `--dist DIR` loads the engine from another build (another commit's `dist`), to compare.
 * Prints, never asserts.
 */
'use strict';

const path = require('node:path');

const flag = (name, fallback) => {
	const at = process.argv.indexOf(`--${name}`);
	return at > 0 ? process.argv[at + 1] : fallback;
};
const COUNT = Number(flag('count', 10_000));
const DIST = path.resolve(flag('dist', path.join(__dirname, '..', 'dist')));
if (typeof global.gc !== 'function') {
	console.error('Run with node --expose-gc, so heapUsed is read after a full collection.');
	process.exit(2);
}
const { validateAgainst, compiledSchemaCounts } = require(
	path.join(DIST, 'src', 'validation', 'validate.js'),
);
const { idsHeldByAjv } = require(path.join(DIST, 'src', 'validation', 'ajv-dialects.js'));

function schemaOf(index) {
	const own = `https://example.com/run-${index}.json`;
	return {
		...(index % 2 === 1 ? { $schema: 'https://json-schema.org/draft/2020-12/schema' } : {}),
		$id: own,
		type: 'object',
		properties: {
			id: { $id: `${own}/id`, type: 'integer', const: index },
			...(index % 2 === 1 ? { label: { $anchor: 'label', type: 'string' } } : {}),
		},
		required: ['id'],
	};
}

const heapMiB = () => {
	global.gc();
	global.gc();
	return (process.memoryUsage().heapUsed / 2 ** 20).toFixed(1);
};
const line = (done, started) => {
	const { cached, heldByAjv } = compiledSchemaCounts();
	const seconds = ((performance.now() - started) / 1000).toFixed(1);
	console.log(
		`${String(done).padStart(6)} compiled  heapUsed ${heapMiB().padStart(6)} MiB  kept ${String(cached).padStart(4)}  ` +
			`ajv holds ${String(heldByAjv).padStart(5)} schema objects, ${String(idsHeldByAjv().length).padStart(6)} ids  ${seconds} s`,
	);
};

// Both dialects' instances and meta-schemas made before the first reading.
validateAgainst({ type: 'string' }, 'warm');
validateAgainst(
	{ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string' },
	'warm',
);
console.log(`engine from ${DIST}, ${COUNT} schemas with distinct $ids`);
const started = performance.now();
line(0, started);
for (let index = 0; index < COUNT; index++) {
	const result = validateAgainst(schemaOf(index), { id: index });
	if (!result.ok) throw new Error(`schema ${index} refused its own value: ${result.issues}`);
	if ((index + 1) % (COUNT / 10) === 0) line(index + 1, started);
}
