'use strict';
/**
 * The four ways of running the same ten-call task that engine-overhead.js compares. Each factory builds its
 * clients once (as a long-lived n8n worker would) and returns `runOnce()`, which runs the task and resolves
 * to the number of model calls it made, or throws when the run did not go as scripted.
 */
const path = require('node:path');
const scenario = require('./scenario');

const DIST = path.join(__dirname, '..', 'dist');
const dist = (...segments) => require(path.join(DIST, 'src', ...segments));

/** Short system text for the native tool-calling contenders; their tools travel in the request's `tools`. */
const NATIVE_SYSTEM_PROMPT =
	"You are an agent that completes the user's task, calling tools when they help.";

/** Agent Core: the engine under test, through its own OpenAI adapter and the real `openai` SDK. */
function agentCore(urls) {
	return agentCoreBuiltIn(DIST)(urls);
}

/**
 * Agent Core as built into `distFolder`: this checkout's build, or an earlier commit's for `--baseline`,
 * so that a change is compared with what came before in one run.
 */
const agentCoreBuiltIn =
	(distFolder) =>
	({ protocolBaseUrl }) => {
		const { runAgent } = require(path.join(distFolder, 'src', 'agent', 'run-agent.js'));
		const { createChatModel } = require(
			path.join(distFolder, 'src', 'providers', 'create-model.js'),
		);
		const model = createChatModel({
			provider: 'openai',
			apiKey: scenario.BENCH_API_KEY,
			baseUrl: protocolBaseUrl,
			maxRetries: 0,
		});
		const config = {
			model: scenario.MODEL_ID,
			max_steps: scenario.MODEL_CALLS_PER_RUN,
			max_tool_calls: scenario.MODEL_CALLS_PER_RUN,
			allowed_tools: ['add'],
		};
		const addTool = {
			name: 'add',
			description: scenario.ADD_DESCRIPTION,
			parameters: scenario.ADD_PARAMETERS,
			execute: (args) => scenario.add(args),
		};
		return async function runOnce() {
			const result = await runAgent({
				model,
				config,
				prompt: scenario.PROMPT,
				extraTools: [addTool],
			});
			if (
				result.finish_reason !== 'final' ||
				result.trace.length !== scenario.MODEL_CALLS_PER_RUN ||
				result.final_answer !== scenario.FINAL_ANSWER
			) {
				const detail = result.stop_detail ? ` (${result.stop_detail})` : '';
				throw new Error(
					`Agent Core ended with finish_reason "${result.finish_reason}"${detail} after ${result.trace.length} steps`,
				);
			}
			return result.trace.length;
		};
	};

/**
 * The floor: the least code that speaks the same protocol on the same SDK. It sends the very requests
 * Agent Core sends (same system prompt, temperature and JSON mode), so the difference is the engine.
 */
function bareLoop({ protocolBaseUrl }) {
	const OpenAI = require('openai');
	const Ajv = require('ajv');
	const { buildSystemPrompt, observationMessage } = dist('agent', 'protocol', 'prompt.js');
	const client = new OpenAI({
		apiKey: scenario.BENCH_API_KEY,
		baseURL: protocolBaseUrl,
		maxRetries: 0,
	});
	const validateArgs = new Ajv({ allErrors: true, strict: false }).compile(scenario.ADD_PARAMETERS);
	const systemPrompt = buildSystemPrompt([
		{ name: 'add', description: scenario.ADD_DESCRIPTION, parameters: scenario.ADD_PARAMETERS },
	]);
	return async function runOnce() {
		const messages = [
			{ role: 'system', content: systemPrompt },
			{ role: 'user', content: scenario.PROMPT },
		];
		for (let modelCalls = 1; modelCalls <= scenario.MODEL_CALLS_PER_RUN; modelCalls++) {
			const completion = await client.chat.completions.create({
				model: scenario.MODEL_ID,
				messages,
				temperature: 0.2,
				response_format: { type: 'json_object' },
			});
			const text = completion.choices[0]?.message?.content ?? '';
			messages.push({ role: 'assistant', content: text });
			const turn = JSON.parse(text);
			if (turn.type === 'final') {
				if (modelCalls !== scenario.MODEL_CALLS_PER_RUN)
					throw new Error(`bare loop: final answer after ${modelCalls} model calls`);
				return modelCalls;
			}
			if (turn.tool !== 'add' || !validateArgs(turn.args))
				throw new Error(`bare loop: unexpected action ${text}`);
			const observation = JSON.stringify(await scenario.add(turn.args));
			messages.push({ role: 'user', content: observationMessage(turn.tool, observation) });
		}
		throw new Error(
			`bare loop: no final answer within ${scenario.MODEL_CALLS_PER_RUN} model calls`,
		);
	};
}

/** Vercel AI SDK 6: `generateText` with native tool calls over chat completions. */
function vercelAiSdk({ nativeBaseUrl }) {
	const { generateText, tool, stepCountIs } = require('ai');
	const { createOpenAI } = require('@ai-sdk/openai');
	const { z } = require('zod');
	const model = createOpenAI({ baseURL: nativeBaseUrl, apiKey: scenario.BENCH_API_KEY }).chat(
		scenario.MODEL_ID,
	);
	const tools = {
		add: tool({
			description: scenario.ADD_DESCRIPTION,
			inputSchema: z.object({ value: z.number().int() }),
			execute: (args) => scenario.add(args),
		}),
	};
	return async function runOnce() {
		const result = await generateText({
			model,
			system: NATIVE_SYSTEM_PROMPT,
			prompt: scenario.PROMPT,
			tools,
			stopWhen: stepCountIs(scenario.MODEL_CALLS_PER_RUN),
			maxRetries: 0,
		});
		if (
			result.steps.length !== scenario.MODEL_CALLS_PER_RUN ||
			result.finishReason !== 'stop' ||
			result.text !== scenario.FINAL_ANSWER
		) {
			throw new Error(
				`Vercel AI SDK ended with finishReason "${result.finishReason}" after ${result.steps.length} steps`,
			);
		}
		return result.steps.length;
	};
}

/** LangChain.js 1.5: `createAgent` (a LangGraph ReAct graph) with `ChatOpenAI` on chat completions. */
function langChain({ nativeBaseUrl }) {
	const { createAgent, tool, AIMessage } = require('langchain');
	const { ChatOpenAI } = require('@langchain/openai');
	const { z } = require('zod');
	const model = new ChatOpenAI({
		model: scenario.MODEL_ID,
		apiKey: scenario.BENCH_API_KEY,
		configuration: { baseURL: nativeBaseUrl },
		maxRetries: 0,
		useResponsesApi: false,
	});
	const add = tool(async (args) => JSON.stringify(await scenario.add(args)), {
		name: 'add',
		description: scenario.ADD_DESCRIPTION,
		schema: z.object({ value: z.number().int() }),
	});
	const agent = createAgent({ model, tools: [add], systemPrompt: NATIVE_SYSTEM_PROMPT });
	return async function runOnce() {
		// Each model call and each tool call is a graph super-step: 19 for this task; the default limit is 25.
		const state = await agent.invoke(
			{ messages: [{ role: 'user', content: scenario.PROMPT }] },
			{ recursionLimit: 100 },
		);
		const modelCalls = state.messages.filter((message) => AIMessage.isInstance(message)).length;
		const last = state.messages[state.messages.length - 1];
		if (modelCalls !== scenario.MODEL_CALLS_PER_RUN || last.content !== scenario.FINAL_ANSWER) {
			throw new Error(
				`LangChain ended after ${modelCalls} model calls with ${JSON.stringify(String(last?.content)).slice(0, 80)}`,
			);
		}
		return modelCalls;
	};
}

/** In table order; `server` says which model server's calls each one's runs add to. */
const CONTENDERS = [
	{ name: 'Bare loop (openai SDK)', key: 'bare', server: 'protocol', create: bareLoop },
	{ name: 'Agent Core', key: 'agentCore', server: 'protocol', create: agentCore },
	{ name: 'Vercel AI SDK 6', key: 'vercel', server: 'native', create: vercelAiSdk },
	{ name: 'LangChain.js 1.5', key: 'langChain', server: 'native', create: langChain },
];

module.exports = { CONTENDERS, agentCoreBuiltIn };
