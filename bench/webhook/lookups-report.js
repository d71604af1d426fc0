'use strict';
/** Prints bench/lookups.js's results: per workflow and level, model calls, p50/p95 and prompt tokens per request, then issue #42's targets. */
const { printTable } = require('./report');

const fixed = (value, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

function report(workflows, results, options) {
	console.log('');
	const rows = [];
	for (const [level, concurrency] of options.concurrency.entries())
		for (const workflow of workflows) {
			const phase = results[workflow.key]?.[level];
			if (!phase) continue;
			rows.push([
				workflow.name,
				concurrency,
				`${phase.ok}/${phase.requests}`,
				fixed(phase.model?.callsPerRequest, 2),
				fixed(phase.p50, 0),
				fixed(phase.p95, 0),
				fixed(phase.model?.promptTokensPerRequest, 0),
				phase.model?.unexpected ?? '',
			]);
			for (const error of phase.firstErrors)
				rows.push([`  error: ${error.slice(0, 150)}`, '', '', '', '', '', '', '']);
		}
	printTable(
		[
			'workflow',
			'conc.',
			'ok',
			'model calls/req',
			'p50 ms',
			'p95 ms',
			'prompt tokens/req',
			'unexpected calls',
		],
		rows,
	);
	console.log('');
	console.log('Targets (issue #42; printed, never enforced): Agent Core (4) against the AI Agent');
	for (const [level, concurrency] of options.concurrency.entries()) {
		const ours = results.agentCore4?.[level];
		const theirs = results.aiAgent?.[level];
		if (!ours?.model || !theirs?.model) continue;
		const line = (label, value, limit, met) =>
			`  c=${concurrency} ${label}: ${value} (target ${limit}) ${met ? 'met' : 'NOT met'}`;
		const calls = [ours.model.callsPerRequest, theirs.model.callsPerRequest];
		console.log(
			line(
				'model calls/req',
				`${fixed(calls[0], 2)} vs ${fixed(calls[1], 2)}`,
				'≤ AI Agent',
				calls[0] <= calls[1],
			),
		);
		const p50 = ours.p50 / theirs.p50;
		console.log(
			line(
				'p50',
				`${fixed(p50, 2)}× (${fixed(ours.p50, 0)} vs ${fixed(theirs.p50, 0)} ms)`,
				'≤ 1.05×',
				p50 <= 1.05,
			),
		);
		const tokens = ours.model.promptTokensPerRequest / theirs.model.promptTokensPerRequest;
		console.log(
			line(
				'prompt tokens/req',
				`${fixed(tokens, 2)}× (${fixed(ours.model.promptTokensPerRequest, 0)} vs ${fixed(theirs.model.promptTokensPerRequest, 0)})`,
				'≤ 0.9×',
				tokens <= 0.9,
			),
		);
	}
}

module.exports = { report };
