#!/usr/bin/env node
'use strict';
/**
 * Reads the CPU profiles of `node bench/webhook.js --cpu-prof DIR` and prints, per load phase, where n8n's
 * main thread spent its time per request: by package (the owner of the innermost frame), the share spent
 * below Agent Core's own frames, and the busiest functions. Phases are cut out of the profile by the
 * CLOCK_MONOTONIC windows the benchmark wrote to DIR/phases.json.
 *
 *   node bench/webhook/profile-summary.js DIR [--top 20]
 */
const fs = require('node:fs');
const path = require('node:path');

const OUR_PACKAGE = 'n8n-nodes-agent-core';

function parseArguments(argv) {
	const options = { folder: undefined, top: 20 };
	for (let index = 0; index < argv.length; index++) {
		if (argv[index] === '--top') options.top = Number(argv[++index]);
		else options.folder = argv[index];
	}
	if (!options.folder)
		throw new Error('usage: node bench/webhook/profile-summary.js DIR [--top 20]');
	return options;
}

/**
 * The package a script belongs to: the last node_modules/<name> in its path (ours is installed at
 * <user folder>/.n8n/nodes/node_modules/n8n-nodes-agent-core), `node` for built-ins.
 */
function mainThread(file) {
	return /\.0\.\d+\.cpuprofile$/.test(file) ? 1 : 0;
}

function ownerOf(url) {
	if (!url) return '(native)';
	if (url.startsWith('node:')) return 'node';
	const match = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
	return match ? match[1] : path.basename(url);
}

function loadProfile(file) {
	const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
	const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
	const parents = new Map();
	for (const node of profile.nodes)
		for (const child of node.children ?? []) parents.set(child, node.id);
	return { profile, nodes, parents };
}

/** Sample node ids and the microseconds each stands for, inside [start, end]. */
function samplesIn({ profile }, start, end) {
	const picked = [];
	let time = profile.startTime;
	for (let index = 0; index < profile.samples.length; index++) {
		time += profile.timeDeltas[index];
		const weight = profile.timeDeltas[index + 1] ?? 0;
		if (time >= start && time <= end) picked.push([profile.samples[index], Math.max(0, weight)]);
	}
	return picked;
}

function summarise(loaded, phase) {
	const { nodes, parents } = loaded;
	const byOwner = new Map();
	const byFunction = new Map();
	const belowOurs = new Map();
	const ourCallSites = new Map();
	let busy = 0;
	let idle = 0;
	let garbage = 0;
	const add = (map, key, value) => map.set(key, (map.get(key) ?? 0) + value);
	for (const [id, weight] of phase.windows.flatMap((window) =>
		samplesIn(loaded, window.startMicroseconds, window.endMicroseconds),
	)) {
		const node = nodes.get(id);
		const name = node.callFrame.functionName;
		if (name === '(idle)') {
			idle += weight;
			continue;
		}
		busy += weight;
		if (name === '(garbage collector)') garbage += weight;
		const owner = name.startsWith('(') ? name : ownerOf(node.callFrame.url);
		add(byOwner, owner, weight);
		const where = node.callFrame.url
			? `${path.basename(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`
			: '';
		add(byFunction, `${name || '(anonymous)'}  [${owner}] ${where}`, weight);
		// Below our frames: any frame of this sample's stack is in the package.
		for (let current = id; current !== undefined; current = parents.get(current)) {
			const frame = nodes.get(current).callFrame;
			if (ownerOf(frame.url) === OUR_PACKAGE) {
				add(belowOurs, owner, weight);
				const site = `${frame.functionName || '(anonymous)'} ${frame.url.split(`${OUR_PACKAGE}/`).pop()}:${frame.lineNumber + 1}`;
				add(ourCallSites, site, weight);
				break;
			}
		}
	}
	return { busy, idle, garbage, byOwner, byFunction, belowOurs, ourCallSites };
}

function main() {
	const options = parseArguments(process.argv.slice(2));
	const windows = JSON.parse(fs.readFileSync(path.join(options.folder, 'phases.json'), 'utf8'));
	const first = Math.min(...windows.map((window) => window.startMicroseconds));
	const last = Math.max(...windows.map((window) => window.endMicroseconds));
	// A phase is one workflow at one concurrency: its rounds' windows together.
	const phases = [];
	for (const window of windows) {
		let phase = phases.find(
			(entry) => entry.workflow === window.workflow && entry.concurrency === window.concurrency,
		);
		if (!phase)
			phases.push(
				(phase = {
					workflow: window.workflow,
					concurrency: window.concurrency,
					requests: 0,
					seconds: 0,
					windows: [],
				}),
			);
		phase.requests += window.requests;
		phase.seconds += (window.endMicroseconds - window.startMicroseconds) / 1e6;
		phase.windows.push(window);
	}
	// n8n's main process: the profile covering every phase with the most samples (the task runner's is small).
	const candidates = fs
		.readdirSync(options.folder)
		.filter((file) => file.endsWith('.cpuprofile'))
		.map((file) => ({
			file,
			header: JSON.parse(fs.readFileSync(path.join(options.folder, file), 'utf8')),
		}))
		.filter(({ header }) => header.startTime <= first && header.endTime >= last)
		// Node names a worker thread's profile <…>.<thread id>.<seq>.cpuprofile; the main thread is thread 0
		// (n8n 2.x runs its event-bus log writer in a worker thread with a profile of its own).
		.sort(
			(left, right) =>
				mainThread(right.file) - mainThread(left.file) ||
				right.header.samples.length - left.header.samples.length,
		);
	if (candidates.length === 0)
		throw new Error(`no profile in ${options.folder} covers the phases in phases.json`);
	const file = path.join(options.folder, candidates[0].file);
	console.log(`profile ${file}`);
	const loaded = loadProfile(file);
	const ms = (microseconds, requests) => (microseconds / 1000 / requests).toFixed(2);

	const summaries = phases.map((phase) => ({ phase, summary: summarise(loaded, phase) }));
	for (const { phase, summary } of summaries) {
		const { seconds } = phase;
		console.log('');
		console.log(
			`== ${phase.workflow} at concurrency ${phase.concurrency}: ${phase.requests} requests in ${seconds.toFixed(1)} s; main thread busy ` +
				`${ms(summary.busy, phase.requests)} ms/request (${((summary.busy / 1e6 / seconds) * 100).toFixed(0)} % of wall time), GC ${ms(summary.garbage, phase.requests)} ms/request`,
		);
		console.log('  by package of the innermost frame (ms/request):');
		for (const [owner, weight] of [...summary.byOwner]
			.sort((left, right) => right[1] - left[1])
			.slice(0, 14)) {
			console.log(`    ${ms(weight, phase.requests).padStart(7)}  ${owner}`);
		}
		const ours = [...summary.belowOurs.values()].reduce((total, weight) => total + weight, 0);
		if (ours > 0) {
			console.log(
				`  below n8n-nodes-agent-core frames: ${ms(ours, phase.requests)} ms/request, of which:`,
			);
			for (const [owner, weight] of [...summary.belowOurs]
				.sort((left, right) => right[1] - left[1])
				.slice(0, 10)) {
				console.log(`    ${ms(weight, phase.requests).padStart(7)}  ${owner}`);
			}
		}
		if (ours > 0) {
			console.log(
				'  below n8n-nodes-agent-core frames, by the innermost frame of the package (ms/request):',
			);
			for (const [site, weight] of [...summary.ourCallSites]
				.sort((left, right) => right[1] - left[1])
				.slice(0, 12)) {
				console.log(`    ${ms(weight, phase.requests).padStart(7)}  ${site}`);
			}
		}
		console.log(`  top ${options.top} functions by self time (ms/request):`);
		for (const [name, weight] of [...summary.byFunction]
			.sort((left, right) => right[1] - left[1])
			.slice(0, options.top)) {
			console.log(`    ${ms(weight, phase.requests).padStart(7)}  ${name}`);
		}
	}
}

try {
	main();
} catch (error) {
	console.error(error.message);
	process.exitCode = 1;
}
