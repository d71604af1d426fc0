// agent-core eval's gates, thresholds and case records, judged on run outputs built here (no model involved).
import { MAX_CASE_DEPTH, tooDeepPart } from '../../../src/cli/eval/eval-bounds';
import { runCase } from '../../../src/cli/eval/eval-case';
import { judgeGates } from '../../../src/cli/eval/eval-gates';
import { gatesForCase, parseGateSpec, parseGatesFile } from '../../../src/cli/eval/eval-spec';
import { summarise } from '../../../src/cli/eval/eval-summary';
import type { AgentResult, TraceStep } from '../../../src/trace/types';

/** A run output with just what the gates read. */
function output(overrides: Partial<AgentResult> = {}): AgentResult {
	return {
		final_answer: 'Paris',
		finish_reason: 'final',
		trace: [{ step: 1, final: { answer: 'Paris' }, repair: false, elapsed_ms: 1, model_ms: 1 }],
		used_tools: {},
		metrics: { model_calls: 1, repairs: 0, failed_steps: 0, failure_rate: 0 },
		usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
		messages: [],
		elapsed_ms: 5,
		model: 'm',
		provider: 'openai',
		cost: 0.001,
		cost_details: null,
		trace_digest: '0'.repeat(64),
		...overrides,
	} as AgentResult;
}

const step = (number: number, fields: Partial<TraceStep>): TraceStep => ({
	step: number,
	repair: false,
	elapsed_ms: 1,
	model_ms: 1,
	...fields,
});

const toolRun = output({
	final_answer: '6',
	trace: [
		step(1, { action: { tool: 'json_transform', args: {} }, observation: '6' }),
		step(2, {
			action: { tool: 'http_request', args: {} },
			error: { type: 'tool_not_allowed', message: 'http_request is not allowed' },
		}),
		step(3, { final: { answer: '6' } }),
	],
	used_tools: { json_transform: { count: 1, total_ms: 1, avg_ms: 1, failures: 0 } },
});

const gate = (expected: Record<string, unknown>, result: AgentResult) =>
	judgeGates(parseGateSpec(expected, 'expected'), result);

describe('eval gates', () => {
	it('compares the answer exactly, as contained text, by RE2 pattern and by schema', () => {
		expect(gate({ answer: 'Paris' }, output()).answer).toEqual({
			passed: true,
			reason: 'the answer is "Paris"',
		});
		expect(gate({ answer: 'paris' }, output()).answer).toEqual({
			passed: false,
			reason: 'expected the answer "paris", got "Paris"',
		});
		expect(gate({ contains: ['Par', 'ris'] }, output()).contains?.passed).toBe(true);
		expect(gate({ contains: ['Par', 'Rome'] }, output()).contains).toEqual({
			passed: false,
			reason: 'the answer does not contain "Rome": "Paris"',
		});
		expect(gate({ regex: '^P\\w+s$' }, output()).regex?.passed).toBe(true);
		expect(gate({ regex: '^Rome' }, output()).regex?.passed).toBe(false);
		expect(gate({ schema: { type: 'string', minLength: 3 } }, output()).schema?.passed).toBe(true);
		const typed = output({ final_answer: '{"total":12}', final_output: { total: 12 } });
		expect(gate({ schema: { type: 'object', required: ['total'] } }, typed).schema?.passed).toBe(
			true,
		);
		expect(gate({ schema: { type: 'object', required: ['count'] } }, typed).schema).toEqual({
			passed: false,
			reason: 'the answer does not match the schema: answer: missing required property "count"',
		});
		expect(gate({ answer: { total: 12 } }, typed).answer?.passed).toBe(true);
		expect(gate({ answer: { total: 13 } }, typed).answer).toEqual({
			passed: false,
			reason: 'expected the answer {"total":13}, got {"total":12}',
		});
	});

	it('says an answer gate fails because the run gave no answer, and why', () => {
		const stopped = output({
			final_answer: '',
			finish_reason: 'max_steps',
			stop_detail: 'no final answer within max_steps (1)',
		});
		expect(gate({ contains: 'x' }, stopped).contains).toEqual({
			passed: false,
			reason: 'no answer: the run ended max_steps (no final answer within max_steps (1))',
		});
	});

	it('matches a pathological pattern against a long answer in linear time (RE2), where a backtracking RegExp would freeze', () => {
		// /(a+)+$/ on 'a…a!' takes 2^n steps in JavaScript's engine: at n = 40 it would not finish in this test's lifetime.
		const long = output({ final_answer: `${'a'.repeat(40_000)}!` });
		expect(gate({ regex: '(a+)+$' }, long).regex).toMatchObject({
			passed: false,
			reason: expect.stringContaining('does not match "(a+)+$"'),
		});
		expect(gate({ regex: '(a+)+!$' }, long).regex?.passed).toBe(true);
	});

	it('fails a regex gate, saying why, when the answer is too long to match within the pattern budget', () => {
		const huge = output({ final_answer: 'a'.repeat(2_000_000) });
		expect(gate({ regex: '(a+)+$' }, huge).regex).toMatchObject({
			passed: false,
			reason: expect.stringMatching(
				/^checking a text of 2,000,000 characters against pattern "\(a\+\)\+\$" would take [\d,]+ RE2 steps .*: not checked$/,
			),
		});
	});

	it('refuses a pattern RE2 cannot run, naming where it is written and what to do', () => {
		expect(() => parseGateSpec({ regex: '(a)\\1' }, '--dataset d.jsonl line 3: expected')).toThrow(
			/^--dataset d\.jsonl line 3: expected\.regex uses a back-reference, which the linear-time pattern engine \(RE2\) cannot run\. Remove the back-reference/,
		);
		expect(() => parseGateSpec({ regex: '(?=a)' }, 'expected')).toThrow(
			/expected\.regex uses a lookahead/,
		);
	});

	it('refuses unknown gates, bad limits, unknown finish reasons and invalid schemas', () => {
		expect(() => parseGateSpec({ regexp: 'a' }, 'expected')).toThrow(
			'expected.regexp is not a gate: use answer, contains, regex, schema, tools, not_tools, no_tool_errors, finish_reason, max_steps, max_tokens, max_cost',
		);
		expect(() => parseGateSpec({ max_steps: 1.5 }, 'expected')).toThrow(
			'expected.max_steps must be a whole number, 0 or more, not 1.5',
		);
		expect(() => parseGateSpec({ finish_reason: 'done' }, 'expected')).toThrow(
			'expected.finish_reason names "done", which is no finish reason',
		);
		expect(() => parseGateSpec({ schema: { type: 'nonsense' } }, 'expected')).toThrow(
			/^expected\.schema is not a valid JSON Schema/,
		);
		expect(() => parseGateSpec({ tools: [] }, 'expected')).toThrow(
			'expected.tools must be a name or a non-empty array of names',
		);
	});

	it('tells a tool that ran from one only asked for, and counts refused calls as tool errors', () => {
		expect(gate({ tools: 'json_transform' }, toolRun).tools).toEqual({
			passed: true,
			reason: 'called json_transform (1×)',
		});
		expect(gate({ tools: ['http_request', 'calculator'] }, toolRun).tools).toEqual({
			passed: false,
			reason: 'http_request was asked for (step 2) but never ran; calculator was never called',
		});
		expect(gate({ not_tools: ['http_request'] }, toolRun).not_tools).toEqual({
			passed: false,
			reason: 'http_request was called at step 2 (refused, never ran)',
		});
		expect(gate({ not_tools: ['json_transform'] }, toolRun).not_tools).toEqual({
			passed: false,
			reason: 'json_transform was called at step 1 and ran',
		});
		expect(gate({ not_tools: ['calculator'] }, toolRun).not_tools?.passed).toBe(true);
		expect(gate({ no_tool_errors: true }, toolRun).no_tool_errors).toEqual({
			passed: false,
			reason: '1 tool error: step 2 tool_not_allowed: http_request is not allowed',
		});
		expect(gate({ no_tool_errors: true }, output()).no_tool_errors?.passed).toBe(true);
	});

	it('holds finish_reason, steps, tokens and cost to their limits; an unknown cost fails max_cost, saying why', () => {
		expect(
			gate({ finish_reason: ['final', 'max_steps'] }, output({ finish_reason: 'max_steps' }))
				.finish_reason?.passed,
		).toBe(true);
		expect(
			gate(
				{ finish_reason: 'final' },
				output({ finish_reason: 'loop', stop_detail: 'json_transform repeated' }),
			).finish_reason,
		).toEqual({
			passed: false,
			reason: 'finish_reason loop (json_transform repeated), expected final',
		});
		expect(gate({ max_steps: 2 }, toolRun).max_steps).toEqual({
			passed: false,
			reason: '3 steps, at most 2 allowed',
		});
		expect(gate({ max_tokens: 120 }, output()).max_tokens?.passed).toBe(true);
		expect(gate({ max_tokens: 119 }, output()).max_tokens?.passed).toBe(false);
		expect(gate({ max_cost: 0.001 }, output()).max_cost?.passed).toBe(true);
		expect(gate({ max_cost: 0.0009 }, output()).max_cost?.passed).toBe(false);
		expect(
			gate(
				{ max_cost: 1 },
				output({ cost: null, cost_notice: 'model m has no price; add it to prices' }),
			).max_cost,
		).toEqual({
			passed: false,
			reason:
				'the cost is unknown, so max_cost cannot hold: model m has no price; add it to prices',
		});
	});

	it("counts a plan's steps, which run without a model call, out of max_steps as the run's own max_steps does (issue #51)", () => {
		const planned = output({
			trace: [
				step(1, { plan: [{ step: 1, description: 'd', tool: 'json_transform', args: {} }] }),
				step(2, {
					plan_steps: [1],
					action: { tool: 'json_transform', args: {} },
					observation: '6',
				}),
				step(3, { final: { answer: 'Paris' } }),
			],
		});
		expect(gate({ max_steps: 2 }, planned).max_steps?.passed).toBe(true);
		expect(gate({ max_steps: 1 }, planned).max_steps).toEqual({
			passed: false,
			reason: '2 steps, at most 1 allowed',
		});
	});

	it("holds a case to finish_reason final unless told otherwise, and its own keys replace every_case's", () => {
		expect(gatesForCase({}, {})).toEqual({ finish_reason: ['final'] });
		expect(
			gatesForCase({ max_steps: 3, finish_reason: ['final', 'max_steps'] }, { max_steps: 5 }),
		).toEqual({ finish_reason: ['final', 'max_steps'], max_steps: 5 });
	});
});

describe('eval cases and thresholds', () => {
	const evalCase = { id: 'c', line: 1, input: { prompt: 'q' }, expected: {} };

	it('turns a run that throws into a failed case carrying its error', async () => {
		const record = await runCase(evalCase, { finish_reason: ['final'] }, () =>
			Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:9')),
		);
		expect(record).toMatchObject({
			id: 'c',
			passed: false,
			finish_reason: null,
			cost: null,
			error: 'Error: connect ECONNREFUSED 127.0.0.1:9',
			gates: {
				run: { passed: false, reason: 'the run failed: Error: connect ECONNREFUSED 127.0.0.1:9' },
			},
		});
	});

	it('requires every case to pass without pass_rate or max_failed, and judges each threshold over the set', async () => {
		const passed = await runCase(evalCase, { finish_reason: ['final'] }, async () =>
			output({ cost: 0.5 }),
		);
		const failed = await runCase(
			{ ...evalCase, id: 'd' },
			{ finish_reason: ['final'], no_tool_errors: true },
			async () => toolRun,
		);
		expect(failed.tool_errors).toBe(1);
		expect(summarise([passed, passed], {}).holds).toBe(true);
		expect(summarise([passed, failed], {})).toMatchObject({
			holds: false,
			passed: 1,
			failed: 1,
			thresholds: [{ name: 'every case passes', holds: false }],
		});
		expect(summarise([passed, failed], { pass_rate: 0.5 }).holds).toBe(true);
		expect(summarise([passed, failed], { pass_rate: 0.51 }).holds).toBe(false);
		expect(summarise([passed, failed], { max_failed: 1 }).holds).toBe(true);
		expect(summarise([passed, failed], { max_failed: 1, max_tool_errors: 0 }).holds).toBe(false);
		expect(summarise([passed, passed], { max_total_cost: 1 }).holds).toBe(true);
		expect(summarise([passed, passed], { max_total_cost: 0.99 }).holds).toBe(false);
		expect(summarise([passed, passed], { max_total_tokens: 240 }).holds).toBe(true);
	});

	it('fails max_total_cost when a case has no known cost, however small the rest', async () => {
		const unpriced = await runCase(evalCase, {}, async () => output({ cost: null }));
		const summary = summarise([unpriced], { max_total_cost: 100 });
		expect(summary.thresholds).toContainEqual({
			name: 'max_total_cost',
			limit: '≤ 100 USD',
			actual: '0 USD (1 case without a known cost)',
			holds: false,
		});
		expect(summary.holds).toBe(false);
	});

	it('refuses a gates file with an unknown section or threshold, naming it', () => {
		expect(() => parseGatesFile({ every: {} }, 'g.json')).toThrow(
			'--gates g.json: "every" is not a section: use every_case (gates for each case) and thresholds (over the set)',
		);
		expect(() => parseGatesFile({ thresholds: { pass_rate: 90 } }, 'g.json')).toThrow(
			'--gates g.json: thresholds.pass_rate must be a share from 0 to 1 (0.9 = 90% of cases), not 90',
		);
		expect(() => parseGatesFile({ thresholds: { min_pass: 1 } }, 'g.json')).toThrow(
			/thresholds\.min_pass is not a threshold/,
		);
		expect(
			parseGatesFile(
				{ every_case: { no_tool_errors: true }, thresholds: { max_total_cost: 1.5 } },
				'g.json',
			),
		).toEqual({ every_case: { no_tool_errors: true }, thresholds: { max_total_cost: 1.5 } });
	});
});

describe('eval case depth', () => {
	/** A case whose expected.answer makes the whole case `levels` deep (the case and expected are two of them). */
	const caseOfDepth = (levels: number) =>
		JSON.parse(
			`{"input":"x","expected":{"answer":${'['.repeat(levels - 2)}${']'.repeat(levels - 2)}}}`,
		);

	it('allows a case exactly MAX_CASE_DEPTH (64) levels deep and names the part of one a level deeper', () => {
		expect(MAX_CASE_DEPTH).toBe(64);
		expect(tooDeepPart(caseOfDepth(MAX_CASE_DEPTH))).toBeUndefined();
		expect(tooDeepPart(caseOfDepth(MAX_CASE_DEPTH + 1))).toBe('expected.answer');
	});

	it('measures a value a million levels deep without a call per level', () => {
		expect(tooDeepPart(caseOfDepth(1_000_000))).toBe('expected.answer');
		expect(tooDeepPart({ input: [{ role: 'user', content: 'x', extra: caseOfDepth(200) }] })).toBe(
			'input[0]',
		);
	});
});
