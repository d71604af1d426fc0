#!/usr/bin/env node
/**
 * What `json_mode: "json_schema"` costs on the wire against `json_object`: the bytes of the system prompt
 * and of the whole request body per model call, for 1, 4 and 16 allowed tools, side by side, plus the
 * engine's client-side time per call in each mode. Each run is one tool step and one final answer through
 * the real openai SDK against the scripted server, so the bytes are the ones an endpoint receives.
 *
 * Run after `npm run build`:  node bench/schema-mode.js [--runs 200]
 * Prints, never asserts; exits 1 only when a run did not go as scripted.
 */
'use strict';

const path = require('node:path');

const dist = (...parts) => require(path.join(__dirname, '..', 'dist', 'src', ...parts));
let runAgent, createChatModel, startScriptedServer;
try {
	({ runAgent } = dist('agent', 'run-agent.js'));
	({ createChatModel } = dist('providers', 'create-model.js'));
	({ startScriptedServer } = dist('demo', 'scripted-server.js'));
} catch (error) {
	console.error(`Cannot load dist/ (${error.message}); run npm run build first.`);
	process.exit(1);
}

const TOOL_COUNTS = [1, 4, 16];
const MODES = ['json_object', 'json_schema'];
const runsFlag = process.argv.indexOf('--runs');
const RUNS = runsFlag > 0 ? Number(process.argv[runsFlag + 1]) : 200;
const ROUNDS = 10;

/** Tools shaped like typical workflow tools: a few typed properties, some optional, one enum. */
function toolsOf(count) {
	return Array.from({ length: count }, (_, index) => ({
		name: `lookup_${index}`,
		description: `Looks up record kind ${index} in the back office by id and returns its fields.`,
		parameters: {
			type: 'object',
			properties: {
				id: { type: 'string', description: 'The record id' },
				fields: { type: 'array', items: { type: 'string' }, description: 'Fields to return' },
				region: { type: 'string', enum: ['eu', 'us', 'apac'] },
				limit: { type: 'integer', minimum: 1, maximum: 100 },
			},
			required: ['id'],
			additionalProperties: false,
		},
		async execute(args) {
			return { id: args.id, status: 'open' };
		},
	}));
}

/** Runs of one mode; `runs` of them, timed together. */
async function timedRuns(server, tools, mode, runs) {
	const model = createChatModel({
		provider: 'openai',
		apiKey: 'bench-key',
		baseUrl: server.openaiBaseUrl,
		maxRetries: 0,
	});
	const config = {
		model: 'scripted-model',
		allowed_tools: tools.map((tool) => tool.name),
		json_mode: mode,
	};
	const script = [
		JSON.stringify({ type: 'action', tool: tools[tools.length - 1].name, args: { id: 'A-1' } }),
		JSON.stringify({ type: 'final', answer: 'open' }),
	];
	let elapsed = 0;
	for (let run = 0; run < runs; run++) {
		server.setScript(script);
		server.requests.length = 0;
		const started = process.hrtime.bigint();
		const result = await runAgent({
			model,
			config,
			prompt: 'What is the status of record A-1?',
			extraTools: tools,
		});
		elapsed += Number(process.hrtime.bigint() - started) / 1e6;
		if (result.finish_reason !== 'final')
			throw new Error(
				`${mode} with ${tools.length} tools ended ${result.finish_reason}: ${result.stop_detail}`,
			);
	}
	const first = server.requests[0];
	return {
		promptBytes: Buffer.byteLength(first.messages[0].content),
		requestBytes: Buffer.byteLength(JSON.stringify(first.body)),
		elapsed,
	};
}

/** Both modes warmed up, then measured in alternating rounds, so neither pays for the other's warm-up or for a busy moment alone. */
async function measure(server, tools) {
	const totals = {};
	for (const mode of MODES) await timedRuns(server, tools, mode, Math.ceil(RUNS / 5));
	for (let round = 0; round < ROUNDS; round++) {
		for (const mode of MODES) {
			const measured = await timedRuns(server, tools, mode, Math.ceil(RUNS / ROUNDS));
			totals[mode] = { ...measured, elapsed: (totals[mode]?.elapsed ?? 0) + measured.elapsed };
		}
	}
	const callsPerMode = Math.ceil(RUNS / ROUNDS) * ROUNDS * 2;
	return Object.fromEntries(
		MODES.map((mode) => [
			mode,
			{ ...totals[mode], msPerCall: totals[mode].elapsed / callsPerMode },
		]),
	);
}

async function main() {
	const server = await startScriptedServer();
	const rows = [];
	try {
		for (const count of TOOL_COUNTS) {
			const tools = toolsOf(count);
			const results = await measure(server, tools);
			rows.push({ count, object: results.json_object, schema: results.json_schema });
		}
	} finally {
		await server.close();
	}
	console.log(
		`json_object vs json_schema per model call (${RUNS} runs of 2 calls each per mode, alternating rounds, one process)`,
	);
	console.log(
		'tools | prompt bytes (object / schema) | request bytes (object / schema, ratio) | client ms per call (object / schema, ratio)',
	);
	for (const { count, object, schema } of rows) {
		console.log(
			`${String(count).padStart(5)} | ${object.promptBytes} / ${schema.promptBytes} | ${object.requestBytes} / ${schema.requestBytes} (${(schema.requestBytes / object.requestBytes).toFixed(2)}×)` +
				` | ${object.msPerCall.toFixed(2)} / ${schema.msPerCall.toFixed(2)} (${(schema.msPerCall / object.msPerCall).toFixed(2)}×)`,
		);
	}
}

main().catch((error) => {
	console.error(error.message);
	process.exit(1);
});
