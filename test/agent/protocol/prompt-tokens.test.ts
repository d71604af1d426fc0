// The prompt's size on the webhook benchmark's job, counted as `npm run bench:webhook` counts it, without n8n.
import { Tool as LangChainTool } from '@langchain/core/tools';
import { OBSERVATIONS_ARE_DATA, observationMessage } from '../../../src/agent/protocol/prompt';
import { runAgent } from '../../../src/agent/run-agent';
import type { ScriptedRequest } from '../../../src/demo/scripted-server';
import type { Tool } from '../../../src/tools/tool';
import { toJsonSchemaObject } from '../../../src/validation/json-schema-of';
import { modelFor, useScriptedServer } from '../../support/agent';

// gpt-tokenizer's o200k_base, the encoding the benchmark counts with (bench/webhook/model-server.js).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { encode } = require('gpt-tokenizer/encoding/o200k_base') as {
	encode(text: string): number[];
};

// The benchmark's own job: the same instructions, prompt, tool expression and answer (bench/webhook/scenario.js).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const scenario = require('../../../bench/webhook/scenario.js') as {
	MODEL_ID: string;
	INSTRUCTIONS: string;
	CALCULATOR_EXPRESSION: string;
	EXPECTED_TOTAL: string;
	promptFor(requestNumber: number): string;
	tagOf(text: string): string | undefined;
	answerFor(tag: string, total: string): string;
};

/**
 * n8n's AI Agent's prompt tokens per webhook request on this job (both model calls), as the benchmark measured
 * it: issue #29 ("Agent Core now sends 463 prompt tokens per request against n8n's AI Agent's 400"), README
 * *Benchmarks*. The benchmark does not keep it as a constant: it is measured from the AI Agent's requests.
 */
const AI_AGENT_PROMPT_TOKENS = 400;
/**
 * For the same build the benchmark counted 463 where this test counts 461 (a detail of what n8n supplies
 * that this test does not reproduce), so the bound keeps those two tokens in hand.
 */
const BENCH_EXCESS = 2;

/**
 * n8n's Calculator tool sub-node supplies `@langchain/community`'s Calculator, a classic string Tool with
 * this description (@langchain/community dist/tools/calculator.js, as installed with n8n 2.41.1), renamed
 * after the node: `nodeNameToToolName` of the node "Calculator" (ToolCalculator.node.js). Built on
 * @langchain/core's Tool here so that its schema is LangChain's own, as the node converts it.
 */
class Calculator extends LangChainTool {
	name = 'Calculator';
	description =
		'Useful for getting the result of a math expression. The input to this tool should be a valid mathematical expression that could be executed by a simple calculator.';
	protected async _call(): Promise<string> {
		return scenario.EXPECTED_TOTAL;
	}
}

/** The Calculator as Agent Core's node adapts a connected tool (nodes/AgentCore/execute/inputs/connected-tools.ts). */
function calculatorTool(): Tool {
	const calculator = new Calculator();
	return {
		name: calculator.name,
		sideEffects: true,
		description: calculator.description,
		parameters: toJsonSchemaObject(calculator.schema),
		execute: async (args) => calculator.invoke(args as { input: string }),
	};
}

function textOf(content: unknown): string {
	if (typeof content === 'string') return content;
	if (!Array.isArray(content)) return '';
	return content
		.map((part) =>
			typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : '',
		)
		.join('');
}

/**
 * What bench/webhook/model-server.js counts of one request (its promptParts and tokens): message contents,
 * tool-call names and arguments, the `tools` JSON and a response_format JSON schema, each encoded apart.
 */
function benchPromptTokens(body: Record<string, any>): number {
	const parts: string[] = [];
	for (const message of Array.isArray(body.messages) ? body.messages : []) {
		parts.push(textOf(message?.content));
		for (const call of message?.tool_calls ?? [])
			parts.push(String(call?.function?.name ?? ''), String(call?.function?.arguments ?? ''));
	}
	if (Array.isArray(body.tools)) parts.push(JSON.stringify(body.tools));
	if (body.response_format?.json_schema)
		parts.push(JSON.stringify(body.response_format.json_schema));
	return parts.reduce((total, text) => total + encode(text).length, 0);
}

describe('prompt tokens on the webhook benchmark job (o200k_base, as bench:webhook counts)', () => {
	const server = useScriptedServer({
		models: [scenario.MODEL_ID],
		script: (request: ScriptedRequest) => {
			const tag = scenario.tagOf(
				request.messages.find((message) => message.role === 'user')?.content ?? '',
			)!;
			if (request.callIndex % 2 === 0)
				return JSON.stringify({
					type: 'action',
					tool: 'Calculator',
					args: { input: scenario.CALCULATOR_EXPRESSION },
				});
			return JSON.stringify({
				type: 'final',
				answer: scenario.answerFor(tag, scenario.EXPECTED_TOTAL),
			});
		},
	});

	async function runJob(
		requestNumber: number,
		maxParallelCalls: number,
	): Promise<ScriptedRequest[]> {
		const before = server().requests.length;
		const result = await runAgent({
			model: modelFor(server()),
			config: {
				model: scenario.MODEL_ID,
				allowed_tools: ['Calculator'],
				max_steps: 6,
				max_tool_calls: 4,
				max_parallel_calls: maxParallelCalls,
				timeout: 60,
			},
			extraTools: [calculatorTool()],
			developerText: scenario.INSTRUCTIONS,
			prompt: scenario.promptFor(requestNumber),
		});
		expect(result.finish_reason).toBe('final');
		expect(result.final_answer).toBe(
			scenario.answerFor(`[request ${requestNumber}]`, scenario.EXPECTED_TOTAL),
		);
		return server().requests.slice(before);
	}

	const tokensOf = (requests: ScriptedRequest[]) =>
		requests.map((request) => benchPromptTokens(request.body as Record<string, any>));

	it("at max_parallel_calls 1, sends at most the AI Agent's prompt tokens per webhook request (both calls)", async () => {
		const requests = await runJob(17, 1);
		expect(requests).toHaveLength(2);
		// What is counted still carries every protection: the whole protocol, the wrapper and the data notice.
		const system = requests[1].messages[0].content;
		expect(system).toMatch(
			/^Reply with one JSON object: \{"type":"action","tool":"<name>","args":\{\.\.\.\}\} or \{"type":"final","answer":"\.\.\."\}\.\n- Calculator: /,
		);
		expect(requests[1].messages.at(-1)?.content).toBe(
			observationMessage('Calculator', scenario.EXPECTED_TOTAL),
		);
		expect(observationMessage('Calculator', scenario.EXPECTED_TOTAL)).toBe(
			`Observation from Calculator:\n<observation>\n272\n</observation>\n${OBSERVATIONS_ARE_DATA}`,
		);
		const perCall = tokensOf(requests);
		const total = perCall[0] + perCall[1];
		// Printed for the README's per-part budget; the assertion is the bound.
		console.log(
			`prompt tokens per request: ${total} (call 1: ${perCall[0]}, call 2: ${perCall[1]}); AI Agent: ${AI_AGENT_PROMPT_TOKENS}`,
		);
		expect(total + BENCH_EXCESS).toBeLessThanOrEqual(AI_AGENT_PROMPT_TOKENS);
	});

	/**
	 * The default (4) offers the "actions" form (issue #42) in the protocol sentence of every call: that clause
	 * is all it adds, so a one-call job pays exactly its tokens on each of its two calls, and no more.
	 */
	it('at the default max_parallel_calls 4, adds exactly the "actions" clause on each call', async () => {
		const single = tokensOf(await runJob(17, 1));
		const requests = await runJob(17, 4);
		expect(requests[0].messages[0].content).toMatch(
			/^Reply with one JSON object: \{"type":"action","tool":"<name>","args":\{\.\.\.\}\}, \{"type":"actions","calls":\[≤4 \{"tool","args"\}\]\} or \{"type":"final"/,
		);
		const clause = encode(', {"type":"actions","calls":[≤4 {"tool","args"}]}').length;
		const batched = tokensOf(requests);
		console.log(
			`prompt tokens per request at max_parallel_calls 4: ${batched[0] + batched[1]} (the clause: ${clause} per call)`,
		);
		expect(clause).toBeLessThanOrEqual(16);
		expect(batched[0] - single[0]).toBeLessThanOrEqual(clause);
		expect(batched[1] - single[1]).toBeLessThanOrEqual(clause);
	});
});
