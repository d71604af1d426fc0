'use strict';
/**
 * bench/plan-mode.js's model: src/demo's scripted server playing bench/plan-mode/scenario.js after `delayMs`
 * per call, counting per mode what it received (model calls, o200k_base prompt tokens by call position) and
 * reporting those tokens as the call's usage. Shared by the engine part and the n8n part (plan-mode/n8n.js).
 */
const path = require('node:path');
const { promptTokenList } = require('../prompt-tokens');
const job = require('./scenario');

const MODES = ['react', 'plan'];
const LABELS = { react: 'ReAct (step by step)', plan: 'Plan mode' };
const dist = (...parts) => require(path.join(__dirname, '..', '..', 'dist', 'src', ...parts));

/** What the server saw per mode: model calls and prompt tokens, by call position too. */
function newTally() {
	return Object.fromEntries(MODES.map((mode) => [mode, { calls: 0, promptTokens: 0, byCall: [] }]));
}

/** src/demo's scripted server playing bench/plan-mode/scenario.js, after `delayMs`, reporting the tokens it counted. */
async function startModel(delayMs) {
	const { startScriptedServer } = dist('demo', 'scripted-server.js');
	const holder = { tally: newTally(), unexpected: [] };
	const server = await startScriptedServer({
		script: (request) => {
			server.requests.length = 0; // the server keeps every request for tests; a benchmark would only grow
			const mode = job.isPlanMode(request.messages) ? 'plan' : 'react';
			const promptTokens = promptTokenList(request.body).length;
			const turn = request.messages.filter((message) => message.role === 'assistant').length;
			const tally = holder.tally[mode];
			tally.calls++;
			tally.promptTokens += promptTokens;
			tally.byCall[turn] = (tally.byCall[turn] ?? 0) + promptTokens;
			let text = job.reply(request.messages);
			if (text === undefined) {
				holder.unexpected.push(`${mode} call ${turn + 1}`);
				text = JSON.stringify({ type: 'final', answer: `unexpected ${mode} call ${turn + 1}` });
			}
			const usage = { prompt_tokens: promptTokens, completion_tokens: Math.ceil(text.length / 4) };
			return { text, delayMs, usage };
		},
	});
	return { server, holder };
}

module.exports = { LABELS, MODES, newTally, startModel };
