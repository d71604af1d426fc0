// Agent Core Tool on Agent Core's Tool input (issue #52): the parent runs it as its sub-agent, in n8n's engine.
import type { TraceStep } from '../../../src/trace/types';
import { action, final, lastUserMessage } from '../../support/agent';
import { runWorkflow } from '../../support/n8n-engine';
import {
	CHILD,
	childNode,
	nodeTypes,
	subAgentWorkflow,
	agentCoreParent,
	useParentAndChildServers,
} from './sub-agent-workflow';

const totalOf = (steps: readonly TraceStep[]) =>
	steps.reduce((sum, step) => sum + (step.usage?.total_tokens ?? 0), 0);

describe('Agent Core Tool under Agent Core', () => {
	const servers = useParentAndChildServers();

	const parent = agentCoreParent;

	async function run(child = childNode(), parentParameters: Record<string, unknown> = {}) {
		const calls: unknown[] = [];
		const result = await runWorkflow({
			...subAgentWorkflow(parent({ prompt: '={{ $json.prompt }}', ...parentParameters }), child),
			nodeTypes: nodeTypes(servers.child, calls),
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'parent-key', url: servers.parent.openaiBaseUrl },
			},
		});
		expect(result.errorOf('Agent Core')).toBeUndefined();
		return { json: result.outputOf('Agent Core')[0].json as Record<string, any>, calls };
	}

	it("runs as the parent's sub-agent: its own model and tools, its steps as sub_run under the call, one budget", async () => {
		servers.parent.setScript([action(CHILD, { task: 'multiply 6 by 7' }), final('It is 42.')]);
		servers.child.setScript([action('multiply', { a: 6, b: 7 }), final('6 times 7 is 42')]);
		const { json, calls } = await run(
			childNode({ options: { developerText: 'You do arithmetic with tools only.' } }),
		);
		expect(json).toMatchObject({ finish_reason: 'final', final_answer: 'It is 42.' });
		expect(calls).toEqual([{ a: 6, b: 7 }]);
		// The child's model saw its task and its System Message, never the parent's conversation.
		expect(lastUserMessage(servers.child, 0)).toBe('multiply 6 by 7');
		expect(servers.child.requests[0].messages[0].content).toContain(
			'You do arithmetic with tools only.',
		);
		expect(JSON.stringify(servers.child.requests)).not.toContain('What is 6 times 7?');
		const trace = json.trace as TraceStep[];
		expect(trace[0].observation).toBe('6 times 7 is 42');
		const sub = trace[0].sub_run!;
		expect(sub).toMatchObject({ agent: CHILD, finish_reason: 'final', depth: 1 });
		expect(sub.steps.map((step) => step.action?.tool ?? step.final?.answer)).toEqual([
			'multiply',
			'6 times 7 is 42',
		]);
		expect(sub.steps.map((step) => step.model)).toEqual(['gpt-5-mini', 'gpt-5-mini']);
		// One budget: the parent's usage holds the child's, and the child's tool call counts among the parent's.
		expect(sub.usage.total_tokens).toBe(totalOf(sub.steps));
		expect(json.usage.total_tokens).toBe(totalOf(trace) + sub.usage.total_tokens);
		expect(json.used_tools[CHILD].count).toBe(1);
	});

	it("narrows the child's limits to what the parent has left: with one tool call left, the child stops and the parent is told", async () => {
		servers.parent.setScript([action(CHILD, { task: 'multiply twice' }), final('It could not.')]);
		servers.child.setScript([
			action('multiply', { a: 6, b: 7 }),
			action('multiply', { a: 2, b: 3 }),
			final('never reached'),
		]);
		const { json, calls } = await run(childNode(), { options: { maxToolCalls: 2 } });
		const trace = json.trace as TraceStep[];
		expect(calls).toEqual([{ a: 6, b: 7 }]);
		expect(trace[0].sub_run?.finish_reason).toBe('max_tool_calls');
		expect(trace[0].error?.message).toMatch(
			new RegExp(`^${CHILD} did not answer \\(finish_reason max_tool_calls\\)`),
		);
	});

	it('runs a Prompt of other words around the task as a tool with its own run: the words reach its model, no sub_run', async () => {
		servers.parent.setScript([action(CHILD, { task: 'multiply 6 by 7' }), final('Voilà: 42.')]);
		servers.child.setScript([final('six fois sept font 42')]);
		const { json } = await run(
			childNode({ text: "=Answer in French: {{ $fromAI('task', 'the question', 'string') }}" }),
		);
		expect(lastUserMessage(servers.child, 0)).toBe('Answer in French: multiply 6 by 7');
		const trace = json.trace as TraceStep[];
		expect(trace[0].observation).toBe('six fois sept font 42');
		expect(trace[0].sub_run).toBeUndefined();
	});

	it('counts as read-only only when Options → Read-Only Tools names every tool on its Tool input: then a repeat is answered from the first', async () => {
		const ask = action(CHILD, { task: 'multiply 6 by 7' });
		const script = () => {
			servers.parent.setScript([ask, ask, final('42')]);
			servers.child.setScript([action('multiply', { a: 6, b: 7 }), final('42')]);
		};
		script();
		await run(childNode());
		expect(lastUserMessage(servers.parent, 2)).toContain(
			'already ran at step 1 and was not run again, since it has side effects',
		);
		script();
		await run(childNode({ options: { readOnlyTools: 'multiply' } }));
		expect(lastUserMessage(servers.parent, servers.parent.requests.length - 1)).toContain(
			'(repeated call: identical to step 1, not run again; the same result)',
		);
	});

	it('refuses an empty Description, naming it, before any model call', async () => {
		const calls: unknown[] = [];
		const result = await runWorkflow({
			...subAgentWorkflow(parent({ prompt: 'x' }), childNode({ toolDescription: '  ' })),
			nodeTypes: nodeTypes(servers.child, calls),
			credentials: { agentCoreOpenAiApi: { apiKey: 'k', url: servers.parent.openaiBaseUrl } },
		});
		// n8n reports a sub-node's error as "Error in sub-node <name>", the sub-node's message (holding the fix) under it.
		const error = result.errorOf('Agent Core') as (Error & { description?: string }) | undefined;
		expect(error?.description).toBe(
			'Description is empty: say what this agent does and what to give it: the parent model reads it to decide when to call it',
		);
		expect(servers.parent.requests).toHaveLength(0);
	});
});
