// Issue #51 through the node: version 2's Options → Mode, Max Plan Steps and On Plan Step Failure, built from the settings
// table, reach the engine; a plan runs and the item carries it; a stream shows the plan as a numbered list first.
import type { INodeParameters, INodeProperties } from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { agentCoreProperties } from '../../../../nodes/AgentCore/V1/description';
import { agentCorePropertiesV2 } from '../../../../nodes/AgentCore/V2/description';
import { SETTINGS, type Setting } from '../../../../src/panel';
import { final, lastUserMessage, useScriptedServer } from '../../../support/agent';
import { runWorkflow } from '../../../support/n8n-engine';
import { connectInSequence, createInputNode, createNode } from '../../../support/test-nodes';
import { plan, transform } from './plan-steps';

const PLAN_KEYS = ['mode', 'max_plan_steps', 'approve_plan', 'on_step_failure'] as const;
const collection = (properties: INodeProperties[], name: string) =>
	(properties.find((property) => property.name === name)?.options ?? []) as INodeProperties[];
/** A two-step plan: step 2 counts what step 1 found, through a reference to step 1's observation. */
const countPlan = () =>
	plan([
		['json_transform', transform({ a: [4, 5] }, 'a')],
		['json_transform', transform({ $step: 1, pointer: '' }, 'length(@)')],
	]);

describe('Agent Core version 2 in plan mode, in n8n’s engine', () => {
	const server = useScriptedServer();

	const run = (options: INodeParameters, typeVersion = 2, streaming = false) =>
		runWorkflow({
			streaming,
			nodes: [
				createInputNode([{ prompt: 'Count what you find' }]),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					typeVersion,
					parameters: {
						provider: 'openai',
						model: { __rl: true, mode: 'id', value: 'scripted-model' },
						allowedTools: ['json_transform'],
						options,
					},
					settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'Scripted OpenAI' } } },
				}),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: { agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl } },
		});
	const itemOf = (result: Awaited<ReturnType<typeof run>>) =>
		result.outputOf('Agent Core')[0].json as Record<string, any>;

	it("version 2's Options show the plan settings as their table rows say; version 1's panel has none of them", () => {
		const options = collection(agentCorePropertiesV2, 'options');
		const fields = PLAN_KEYS.map((key) => {
			const { panel, default: value } = SETTINGS[key] as Setting;
			const field = options.find((property) => property.name === panel!.name);
			expect(field).toMatchObject({
				displayName: panel!.displayName,
				type: panel!.type,
				default: value,
			});
			return field!;
		});
		expect(fields.map((field) => field.displayName)).toEqual([
			'Mode',
			'Max Plan Steps',
			'Require Approval of the Plan',
			'On Plan Step Failure',
		]);
		expect((fields[0].options as Array<{ name: string }>).map((choice) => choice.name)).toEqual([
			'Step by Step (ReAct)',
			'Plan First, Then Act',
		]);
		const versionOne = [
			...agentCoreProperties,
			...collection(agentCoreProperties, 'options'),
			...collection(agentCoreProperties, 'limits'),
		].map((property) => property.name);
		for (const key of PLAN_KEYS)
			expect(versionOne).not.toContain((SETTINGS[key] as Setting).panel!.name);
	});

	it('Plan First, Then Act runs the plan: the item carries it with each step done, its trace steps name their plan steps', async () => {
		server().setScript([countPlan(), final('There are 2.')]);
		const json = itemOf(await run({ mode: 'plan' }));
		expect(json).toMatchObject({ finish_reason: 'final', output: 'There are 2.' });
		expect(json.plan.steps.map(({ step, status }: any) => [step, status])).toEqual([
			[1, 'done'],
			[2, 'done'],
		]);
		expect(json.trace[0].plan).toHaveLength(2);
		expect(json.trace.slice(1, -1).map((step: any) => step.plan_steps)).toEqual([[1], [2]]);
		// Two model calls: the plan, and the answer from every step's result.
		expect(server().requests).toHaveLength(2);
		expect(lastUserMessage(server(), 1)).toContain('Observations:');
	});

	it('Max Plan Steps reaches the engine: a longer plan gets a repair turn naming the bound', async () => {
		server().setScript([
			countPlan(),
			plan([['json_transform', transform([1], 'length(@)')]]),
			final('1'),
		]);
		const json = itemOf(await run({ mode: 'plan', maxPlanSteps: 1 }));
		expect(json.finish_reason).toBe('final');
		expect(json.trace[0].error.type).toBe('parse_error');
		expect(json.plan.steps).toHaveLength(1);
		expect(lastUserMessage(server(), 1)).toContain(
			'Your plan held 2 steps; at most 1 (max_plan_steps)',
		);
	});

	it('On Plan Step Failure reaches the engine: Stop the Run ends plan_step_failed, Skip the Step answers', async () => {
		const failing = () =>
			plan([
				['json_transform', transform({ a: 1 }, 'length(')],
				['json_transform', transform([1, 2, 3], 'length(@)')],
			]);
		server().setScript([failing()]);
		const stopped = itemOf(await run({ mode: 'plan' }));
		expect(stopped.finish_reason).toBe('plan_step_failed');
		expect(stopped.output).toMatch(/^No answer: a step of the plan failed/);
		server().setScript([failing(), final('Counted 3; step 1 failed.')]);
		const skipped = itemOf(await run({ mode: 'plan', onStepFailure: 'skip' }));
		expect(skipped.finish_reason).toBe('final');
		expect(skipped.plan.steps.map(({ status }: any) => status)).toEqual(['failed', 'done']);
	});

	it('version 1 runs step by step whatever its Options hold: a plan reply is not run as a plan', async () => {
		server().setScript([countPlan(), final('done')]);
		const json = itemOf(await run({ mode: 'plan' }, 1));
		expect(json.plan).toBeUndefined();
		expect(json.used_tools).toEqual({});
		expect(json.trace[0].error).toBeDefined();
	});

	it("streamed, the plan arrives as a numbered list before its steps' own lines", async () => {
		server().setScript([countPlan(), final('There are 2.')]);
		const result = await run({ mode: 'plan' }, 2, true);
		const text = result.chunks.map((chunk) => chunk.content ?? '').join('');
		const list =
			'\n[plan]\n1. step 1 uses json_transform (json_transform)\n2. step 2 uses json_transform (json_transform)\n\n';
		expect(text.startsWith(list)).toBe(true);
		expect(text.indexOf('[json_transform')).toBeGreaterThan(list.length - 1);
		expect(text.endsWith('There are 2.')).toBe(true);
	});
});
