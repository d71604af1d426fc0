// Issue #50, attacked: a hook's change happens before a person approves, never after — the person approves what runs,
// a resumed run does not ask the hooks again, and a redaction that breaks a call's schema stops the run, not the check.
import { resumeAgent } from '../../../src/agent/resume';
import { runAgent } from '../../../src/agent/run-agent';
import type { AgentHook } from '../../../src/agent/hooks';
import {
	action,
	final,
	modelFor,
	probeTool,
	useScriptedServer,
	withoutInput,
} from '../../support/agent';

const SECRET = 'hooks-approval-secret-0123456789';

describe('hooks and a person’s approval', () => {
	const server = useScriptedServer();

	it('shows the person the args a hook changed, runs exactly those once approved, and does not ask the hook again', async () => {
		const probe = probeTool();
		let asked = 0;
		const hooks: AgentHook[] = [
			{
				beforeTool: () => (asked++, { decision: 'modify', args: { value: asked === 1 ? 5 : 99 } }),
			},
		];
		const options = {
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['probe'], approval_required: ['probe'] },
			prompt: 'pay order 7',
			extraTools: [probe.tool],
			stateSecret: SECRET,
			hooks,
		};
		server().setScript([action('probe', { value: 7 }), final('paid')]);
		const paused = await runAgent(options);
		expect(paused.finish_reason).toBe('awaiting_approval');
		expect(paused.pending_action).toMatchObject({ tool: 'probe', args: { value: 5 } });
		expect(probe.calls).toHaveLength(0);
		const resumed = await resumeAgent({
			...withoutInput(options),
			runState: paused.run_state,
			decision: { approve: true },
		});
		expect(resumed.finish_reason).toBe('final');
		expect(probe.calls).toEqual([{ value: 5 }]);
		expect(asked).toBe(1);
	});

	it('a person’s edit passes before_tool; a hook that would change the edited args stops the run instead of running them', async () => {
		const probe = probeTool();
		const hooks: AgentHook[] = [
			{
				beforeTool: (data) =>
					data.args?.value === 8 ? { decision: 'modify', args: { value: 9 } } : undefined,
			},
		];
		const options = {
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['probe'], approval_required: ['probe'] },
			prompt: 'pay order 7',
			extraTools: [probe.tool],
			stateSecret: SECRET,
			hooks,
		};
		server().setScript([action('probe', { value: 7 }), final('paid')]);
		const paused = await runAgent(options);
		const resumed = await resumeAgent({
			...withoutInput(options),
			runState: paused.run_state,
			decision: { edit: { value: 8 } },
		});
		expect(resumed.finish_reason).toBe('guardrail');
		expect(resumed.stop_detail).toMatch(/changed the args of probe a person edited/);
		expect(probe.calls).toHaveLength(0);
	});
});

describe('a redaction that breaks a call’s schema', () => {
	const server = useScriptedServer();
	it('ends the run `guardrail` rather than sending args the tool refuses', async () => {
		const probe = probeTool();
		server().setScript([action('probe', { value: 7 }), final('never')]);
		const result = await runAgent({
			model: modelFor(server()),
			config: {
				model: 'm',
				allowed_tools: ['probe'],
				guardrails: [
					{
						name: 'no-sevens',
						check: 'keywords',
						keywords: ['7'],
						on: ['tool_call'],
						action: 'redact',
					},
				],
			},
			prompt: 'order 7',
			extraTools: [probe.tool],
		});
		expect(result.finish_reason).toBe('guardrail');
		expect(result.stop_detail).toMatch(/^no-sevens changed the args of probe/);
		expect(probe.calls).toHaveLength(0);
	});

	it('finds a card number written as a key’s name', async () => {
		const probe = probeTool('note', async () => ({ ok: true }));
		const tool = { ...probe.tool, parameters: { type: 'object', additionalProperties: true } };
		server().setScript([action('note', { '4111111111111111': 'amount 5' }), final('never')]);
		const result = await runAgent({
			model: modelFor(server()),
			config: {
				model: 'm',
				allowed_tools: ['note'],
				guardrails: [
					{
						name: 'no-cards',
						check: 'pii',
						kinds: ['credit_card'],
						on: ['tool_call'],
						action: 'block',
					},
				],
			},
			prompt: 'note it',
			extraTools: [tool],
		});
		expect(result.finish_reason).toBe('guardrail');
		expect(probe.calls).toHaveLength(0);
	});
});
