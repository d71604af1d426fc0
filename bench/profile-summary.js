#!/usr/bin/env node
'use strict';
/**
 * Summarises a CPU profile of the engine-overhead benchmark's client process (`node --cpu-prof ...
 * bench/engine-overhead.js --only agentCore`): shares of the busy time by owner (this package's files
 * under dist/src, each npm package, Node's own code, garbage collection), the busiest functions by self
 * time, by the innermost frame of this package on the stack, and the inclusive time of the functions matching --match (everything they call counted too).
 *
 *   node bench/profile-summary.js FILE.cpuprofile [--top 25] [--match 'Redactor|canonicalJson|sha256'] [--skip spawnSync] [--from-ms 3000]
 *
 * `--from-ms MS` leaves out the samples of the profile's first MS milliseconds: one-time work (loading
 * modules, compiling the built-in tools' schemas once, the JIT warming up) then no longer counts as a share
 * of every step.
 * `--skip NAME` leaves out the samples with a frame of that name on the stack: `spawnSync` drops the build
 * that `engine-overhead.js --baseline REV` runs in the same process before it measures.
 * Idle time (`(idle)`, `(program)`) is left out of the busy total: the client waits on the loopback
 * server between steps, and that wait is not work.
 */
const fs = require('node:fs');
const path = require('node:path');

const IDLE = new Set(['(idle)', '(program)', '(root)']);

function parseArguments(argv) {
	const options = { file: undefined, top: 25, match: undefined, skip: undefined, fromMs: 0 };
	for (let index = 0; index < argv.length; index++) {
		if (argv[index] === '--top') options.top = Number(argv[++index]);
		else if (argv[index] === '--match') options.match = new RegExp(argv[++index]);
		else if (argv[index] === '--skip') options.skip = argv[++index];
		else if (argv[index] === '--from-ms') options.fromMs = Number(argv[++index]);
		else options.file = argv[index];
	}
	if (!options.file)
		throw new Error(
			"usage: node bench/profile-summary.js FILE.cpuprofile [--top 25] [--match 'Redactor|canonicalJson']",
		);
	return options;
}

/** Who owns a frame: `dist/src/<file>` for ours, the package for node_modules, `node` for built-ins. */
function ownerOf(callFrame) {
	const { url, functionName } = callFrame;
	if (!url)
		return functionName === '(garbage collector)'
			? 'GC'
			: IDLE.has(functionName)
				? functionName
				: '(native)';
	if (url.startsWith('node:')) return 'node';
	const ours = /\/dist\/(src\/.*)$/.exec(url);
	if (ours) return ours[1];
	const match = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
	return match ? match[1] : path.basename(url);
}

const frameName = (callFrame) =>
	`${callFrame.functionName || '(anonymous)'} ${ownerOf(callFrame)}:${callFrame.lineNumber + 1}`;

function summarise(profile, options) {
	const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
	const parents = new Map();
	for (const node of profile.nodes)
		for (const child of node.children ?? []) parents.set(child, node.id);

	const weightOf = new Map(); // node id -> µs
	let at = profile.startTime;
	for (let index = 0; index < profile.samples.length; index++) {
		at += profile.timeDeltas[index];
		if (at - profile.startTime < options.fromMs * 1000) continue;
		const weight = Math.max(0, profile.timeDeltas[index + 1] ?? 0);
		weightOf.set(profile.samples[index], (weightOf.get(profile.samples[index]) ?? 0) + weight);
	}

	const onStack = (id, test) => {
		for (let at = id; at !== undefined; at = parents.get(at))
			if (test(nodes.get(at).callFrame)) return true;
		return false;
	};
	let busy = 0;
	const byOwner = new Map();
	const bySelf = new Map();
	const inclusive = new Map();
	const byOurs = new Map(); // the innermost frame of this package on the stack: what our code caused

	for (const [id, weight] of weightOf) {
		const node = nodes.get(id);
		if (IDLE.has(node.callFrame.functionName) && !node.callFrame.url) continue;
		if (options.skip && onStack(id, (frame) => frame.functionName === options.skip)) continue;
		busy += weight;
		const owner = ownerOf(node.callFrame);
		byOwner.set(owner, (byOwner.get(owner) ?? 0) + weight);
		const name = frameName(node.callFrame);
		bySelf.set(name, (bySelf.get(name) ?? 0) + weight);
		let ours = '(no frame of this package on the stack)';
		for (let at = id; at !== undefined; at = parents.get(at)) {
			const frame = nodes.get(at).callFrame;
			if (ownerOf(frame).startsWith('src/')) {
				ours = frameName(frame);
				break;
			}
		}
		byOurs.set(ours, (byOurs.get(ours) ?? 0) + weight);
		if (!options.match) continue;
		const counted = new Set();
		for (let at = id; at !== undefined; at = parents.get(at)) {
			const frame = frameName(nodes.get(at).callFrame);
			if (!counted.has(frame) && options.match.test(frame)) {
				counted.add(frame);
				inclusive.set(frame, (inclusive.get(frame) ?? 0) + weight);
			}
		}
	}
	return { busy, byOwner, bySelf, inclusive, byOurs };
}

function printTable(title, entries, busy, top) {
	console.log(title);
	for (const [name, weight] of [...entries]
		.sort((left, right) => right[1] - left[1])
		.slice(0, top)) {
		console.log(
			`  ${((100 * weight) / busy).toFixed(1).padStart(5)} %  ${(weight / 1000).toFixed(0).padStart(6)} ms  ${name}`,
		);
	}
}

function main() {
	const options = parseArguments(process.argv.slice(2));
	const profile = JSON.parse(fs.readFileSync(options.file, 'utf8'));
	const { busy, byOwner, bySelf, inclusive, byOurs } = summarise(profile, options);
	console.log(`${options.file}: ${(busy / 1000).toFixed(0)} ms busy (idle left out)`);
	printTable('By owner (self time):', byOwner, busy, options.top);
	printTable('Busiest functions (self time):', bySelf, busy, options.top);
	printTable(
		'By the innermost frame of this package on the stack (its own work and what it called outside):',
		byOurs,
		busy,
		options.top,
	);
	if (options.match)
		printTable(
			`Inclusive time of functions matching ${options.match}:`,
			inclusive,
			busy,
			options.top,
		);
}

main();
