#!/usr/bin/env node
/**
 * What the built-in guardrails cost: CPU per 10 KB of mixed text (prose, JSON, URLs, e-mail addresses, phone,
 * card and IBAN numbers, IP addresses, a token) checked by every built-in check at once — all pii kinds, secrets,
 * urls, a pattern and keywords — as findMatches runs them. Issue #50's target: at most 1 ms per 10 KB.
 *
 * Run after `npx tsc -p tsconfig.build.json`:  node bench/guardrails.js [--runs 500]
 * Prints the median (and the 10th and 90th percentiles) of the runs' CPU time; never asserts.
 */
'use strict';

const path = require('node:path');

let guardrails;
try {
	guardrails = require(path.join(__dirname, '..', 'dist', 'src', 'guardrails', 'index.js'));
} catch (error) {
	console.error(`Cannot load dist/ (${error.message}); run npx tsc -p tsconfig.build.json first.`);
	process.exit(1);
}
const { checkGuardrails, findMatches, hasMatch } = guardrails;

const runsFlag = process.argv.indexOf('--runs');
const RUNS = runsFlag > 0 ? Number(process.argv[runsFlag + 1]) : 500;
const WARMUP = 50;

const CHECKS = checkGuardrails([
	{ name: 'pii', check: 'pii', on: ['answer'], action: 'redact' },
	{ name: 'secrets', check: 'secrets', on: ['answer'], action: 'redact' },
	{
		name: 'own-api',
		check: 'urls',
		allowed_hosts: ['api.example.com', '*.example.org'],
		on: ['tool_call'],
		action: 'deny_call',
	},
	{
		name: 'internal',
		check: 'pattern',
		pattern: 'internal only|confidential',
		on: ['answer'],
		action: 'block',
	},
	{
		name: 'words',
		check: 'keywords',
		keywords: ['project falcon', 'layoffs', 'merger', 'acquisition target'],
		on: ['answer'],
		action: 'block',
	},
]);

/** 10 KB of text such as observations and answers hold: prose with some of everything the checks look for. */
function mixedText() {
	const pieces = [
		'The quarterly report shows revenue of 1 299 999 EUR in 2024, up 12.5% on 2023-12-31. ',
		'Contact jane.doe@example.com or call +44 20 7946 0000 for the details of order 48213. ',
		'{"id": 1234, "url": "https://api.example.com/v1/orders?page=2", "status": "shipped"} ',
		'Paid with 4111 1111 1111 1111 to GB82 WEST 1234 5698 7654 32 from 192.168.1.10. ',
		'See https://docs.example.org/guide and the file report.pdf for the internal only numbers. ',
		'Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123456789 was sent to ::1 by the client. ',
		'Nothing else of note: the team met on Tuesday, agreed the plan and closed the ticket quickly. ',
	];
	let text = '';
	for (let index = 0; text.length < 10_240; index += 1) text += pieces[index % pieces.length];
	return text.slice(0, 10_240);
}

/** 10 KB of prose in which no check finds anything: what a guardrail costs on most texts. */
function plainText() {
	const sentence =
		'The team met on Tuesday, agreed the plan for the next quarter and closed the ticket quickly. ';
	return sentence.repeat(Math.ceil(10_240 / sentence.length)).slice(0, 10_240);
}

const cpuMs = () => {
	const { user, system } = process.cpuUsage();
	return (user + system) / 1000;
};

/** The median, 10th and 90th percentile CPU ms of checking `text` with `checks`, and the finds per run. */
function measure(text, checks = CHECKS, decideOnly = false) {
	let found = 0;
	const run = () => {
		for (const guardrail of checks)
			found += decideOnly ? Number(hasMatch(guardrail, text)) : findMatches(guardrail, text).length;
	};
	for (let index = 0; index < WARMUP; index += 1) run();
	const finds = found / WARMUP;
	const times = [];
	for (let index = 0; index < RUNS; index += 1) {
		// CPU time is counted in microseconds: ten checks per sample, divided back, keep its rounding out.
		const start = cpuMs();
		for (let repeat = 0; repeat < 10; repeat += 1) run();
		times.push((cpuMs() - start) / 10);
	}
	times.sort((left, right) => left - right);
	const at = (share) =>
		times[Math.min(times.length - 1, Math.floor(share * times.length))].toFixed(3);
	return `median ${at(0.5)} (p10 ${at(0.1)}, p90 ${at(0.9)}), ${finds} finds`;
}

console.log(
	`guardrails: ${CHECKS.length} checks (all pii kinds, secrets, urls, a pattern, keywords), ` +
		`${RUNS} runs; CPU ms per 10 KB:`,
);
console.log(`  mixed text (something to find every ~90 characters): ${measure(mixedText())}`);
console.log(`  plain prose (nothing to find):                        ${measure(plainText())}`);
console.log(
	`  mixed text, deciding only (hasMatch: block, deny_call): ${measure(mixedText(), CHECKS, true)}`,
);
console.log('  each check alone on the mixed text (findMatches):');
for (const check of CHECKS)
	console.log(`    ${check.name.padEnd(9)} ${measure(mixedText(), [check])}`);
