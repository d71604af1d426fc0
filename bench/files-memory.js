#!/usr/bin/env node
'use strict';
/**
 * What a 20 MB PDF costs a run (issue #40): peak resident memory above the same run without it, in multiples of
 * the file's size, and the event loop's longest stall while the file is hashed, encoded and sent. Each figure is
 * measured in a fresh Node process that makes the file first (the caller's copy, as n8n holds an item's binary),
 * warms up with a run without files, then makes one run — with the PDF (pass_pdfs on) or without — through the
 * real openai SDK against the scripted server, which runs in this parent process so its copy of the request is
 * not counted. Peak memory is the child's maxRSS.
 *
 *   npm run build && node bench/files-memory.js        (npm run bench:files)
 *
 * Targets (printed, never enforced): peak RSS above the run without it ≤ 3 × the file's size; the main thread
 * stays responsive (longest stall printed beside the run without the file).
 */
const path = require('node:path');
const { fork } = require('node:child_process');

const ROOT = path.join(__dirname, '..');
const FILE_MB = 20;
const TARGET_RATIO = 3;
const ROUNDS = 3;

if (process.argv[2] === 'child') child(process.argv[3], process.argv[4]);
else main();

async function main() {
	const { startScriptedServer } = require(
		path.join(ROOT, 'dist', 'src', 'demo', 'scripted-server.js'),
	);
	const server = await startScriptedServer({
		script: () => {
			server.requests.length = 0; // a benchmark keeps no request
			return '{"type":"final","answer":"an invoice"}';
		},
	});
	const rows = {
		none: [],
		pdf: [],
		'gemini-none': [],
		'gemini-pdf': [],
		'langchain-none': [],
		'langchain-pdf': [],
	};
	try {
		for (let round = 0; round < ROUNDS; round++)
			for (const mode of Object.keys(rows))
				rows[mode].push(
					await measure(
						mode,
						mode.startsWith('gemini') ? server.geminiBaseUrl : server.openaiBaseUrl,
					),
				);
	} finally {
		await server.close();
	}
	const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
	const peak = (mode) => median(rows[mode].map((row) => row.maxRssBytes));
	const stall = (mode) => median(rows[mode].map((row) => row.maxStallMs));
	const fileBytes = FILE_MB * 1024 * 1024;
	const ratio = (peak('pdf') - peak('none')) / fileBytes;
	console.log(
		`files-memory: a ${FILE_MB} MiB PDF in one run, ${ROUNDS} fresh processes per mode (medians)`,
	);
	console.log(`  peak RSS without the file   ${(peak('none') / 1048576).toFixed(1)} MiB`);
	console.log(`  peak RSS with the file      ${(peak('pdf') / 1048576).toFixed(1)} MiB`);
	console.log(
		`  above, in file sizes        ${ratio.toFixed(2)} × (target ≤ ${TARGET_RATIO} ×: ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'})`,
	);
	console.log(
		`  longest event-loop stall    ${stall('pdf').toFixed(1)} ms with the file, ${stall('none').toFixed(1)} ms without`,
	);
	// Gemini's SDK (@google/genai) writes the whole JSON body itself: shown beside, for what it costs there.
	const geminiRatio = (peak('gemini-pdf') - peak('gemini-none')) / fileBytes;
	const langchainRatio = (peak('langchain-pdf') - peak('langchain-none')) / fileBytes;
	console.log(
		`  n8n sub-node (ChatOpenAI)   ${langchainRatio.toFixed(2)} × above (${(peak('langchain-pdf') / 1048576).toFixed(1)} MiB against ${(peak('langchain-none') / 1048576).toFixed(1)}), stall ${stall('langchain-pdf').toFixed(1)} ms`,
	);
	console.log(
		`  Gemini (@google/genai)      ${geminiRatio.toFixed(2)} × above (${(peak('gemini-pdf') / 1048576).toFixed(1)} MiB against ${(peak('gemini-none') / 1048576).toFixed(1)}), stall ${stall('gemini-pdf').toFixed(1)} ms`,
	);
}

function measure(mode, baseUrl) {
	return new Promise((resolve, reject) => {
		const child = fork(__filename, ['child', mode, baseUrl], { execArgv: ['--expose-gc'] });
		child.once('message', resolve);
		child.once('exit', (code) => code !== 0 && reject(new Error(`child ${mode} exited ${code}`)));
	});
}

async function child(mode, baseUrl) {
	const { monitorEventLoopDelay } = require('node:perf_hooks');
	const { runAgent } = require(path.join(ROOT, 'dist', 'src', 'agent', 'run-agent.js'));
	const { createChatModel } = require(
		path.join(ROOT, 'dist', 'src', 'providers', 'create-model.js'),
	);
	// The caller's copy: a PDF header, then bytes that do not compress.
	const file = Buffer.alloc(FILE_MB * 1024 * 1024);
	file.write('%PDF-1.7\n1 0 obj << /Type /Page >> endobj\n', 'latin1');
	for (let at = 64; at < file.length; at += 4096) file.writeUInt32LE((at * 2654435761) >>> 0, at);
	const gemini = mode.startsWith('gemini');
	// An n8n chat model sub-node: LangChain's ChatOpenAI, which writes its own body (as n8n's OpenAI Chat Model does).
	const { LangChainChatModel } = require(
		path.join(ROOT, 'dist', 'src', 'providers', 'langchain', 'index.js'),
	);
	const { ChatOpenAI } = require('@langchain/openai');
	const model = mode.startsWith('langchain')
		? new LangChainChatModel(
				new ChatOpenAI({
					apiKey: 'bench-key',
					model: 'gpt-4o-mini',
					maxRetries: 0,
					configuration: { baseURL: baseUrl },
				}),
			)
		: createChatModel({
				provider: gemini ? 'gemini' : 'openai',
				apiKey: 'bench-key',
				baseUrl,
				maxRetries: 0,
			});
	const config = {
		model: gemini ? 'gemini-2.5-flash' : 'gpt-4o-mini',
		allowed_tools: [],
		pass_pdfs: true,
	};
	await runAgent({ model, config, prompt: 'warm up' });
	global.gc();
	const delay = monitorEventLoopDelay({ resolution: 5 });
	delay.enable();
	const result = await runAgent({
		model,
		config,
		prompt: 'What is this invoice?',
		...(mode.endsWith('pdf') ? { files: [{ name: 'invoice.pdf', data: file }] } : {}),
	});
	delay.disable();
	if (result.finish_reason !== 'final')
		throw new Error(`the run ended ${result.finish_reason}: ${result.stop_detail}`);
	process.send(
		{
			maxRssBytes: process.resourceUsage().maxRSS * 1024,
			maxStallMs: delay.max / 1e6,
			file: file.length,
		},
		() => process.exit(0),
	);
}
