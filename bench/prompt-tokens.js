'use strict';
/**
 * What the model reads in one OpenAI chat-completions request, and how many o200k_base tokens that is
 * (gpt-4o-mini's tokenizer, `gpt-tokenizer`): the one way the benchmarks' model servers count prompts
 * (bench/webhook/model-server.js for bench:webhook and bench:lookups, bench/plan-mode.js).
 */
const { encode } = require('gpt-tokenizer/encoding/o200k_base');

function textOf(content) {
	if (typeof content === 'string') return content;
	if (!Array.isArray(content)) return '';
	return content
		.map((part) =>
			typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : '',
		)
		.join('');
}

/**
 * The text the model reads in one request: message contents, tool-call names and arguments, the tool
 * definitions and a response_format JSON schema (json_schema mode). The provider adds its own framing
 * (a few tokens per message, its own rendering of tool definitions); that is not visible here and not counted.
 */
function promptParts(body) {
	const parts = [];
	for (const message of Array.isArray(body.messages) ? body.messages : []) {
		parts.push(textOf(message?.content));
		for (const call of message?.tool_calls ?? [])
			parts.push(String(call?.function?.name ?? ''), String(call?.function?.arguments ?? ''));
	}
	const definitions = [];
	if (Array.isArray(body.tools)) definitions.push(JSON.stringify(body.tools));
	if (body.response_format?.json_schema)
		definitions.push(JSON.stringify(body.response_format.json_schema));
	return { parts, definitions };
}

/** The request's prompt as o200k_base tokens, tool definitions first (the order a prompt cache reads them in). */
function promptTokenList(body) {
	const { parts, definitions } = promptParts(body);
	return [...definitions, ...parts].flatMap((text) => encode(text));
}

module.exports = { textOf, promptParts, promptTokenList };
