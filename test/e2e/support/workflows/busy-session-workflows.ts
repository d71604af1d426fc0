// The busy-session e2e's pieces (issue #31): one workflow per busy policy, and a model that holds a run's reply until told.
import type { BusyPolicy } from '../../../../src/context';
import type { ScriptedReply, ScriptedRequest } from '../../../../src/demo/scripted-server';
import type { WorkflowJson } from '../../../../scripts/n8n-local';
import { e2eModel, lastUserMessageOf } from '../model-script';

export type LockingPolicy = Exclude<BusyPolicy, 'off'>;

/** The webhook path of each policy's workflow. */
export const BUSY_WEBHOOKS: Record<LockingPolicy, string> = {
	reject: 'agent-core-busy-reject',
	wait: 'agent-core-busy-wait',
	latest: 'agent-core-busy-latest',
};

const WEBHOOK_IDS: Record<LockingPolicy, string> = {
	reject: '7d1e2f30-4b5c-4d6e-8f70-81a2b3c4d5e1',
	wait: '7d1e2f30-4b5c-4d6e-8f70-81a2b3c4d5e2',
	latest: '7d1e2f30-4b5c-4d6e-8f70-81a2b3c4d5e3',
};

/** Longer than any scenario, so that the lock never expires on its own while one runs. */
const BUSY_TTL_SECONDS = 120;
/** Wait's bound: far above the hold of the first run, which lasts until the test sees the second one waiting. */
const BUSY_WAIT_SECONDS = 30;

const credential = (type: string) => ({ [type]: { id: `${type}1`, name: type } });
const redis = credential('agentCoreRedisApi');
const node = (
	name: string,
	type: string,
	typeVersion: number,
	x: number,
	parameters: Record<string, unknown>,
	extra: Record<string, unknown> = {},
) => ({
	name,
	type,
	typeVersion,
	position: [x, 0],
	parameters,
	...extra,
});

/**
 * Webhook (session_id, prompt) → Load History (Agent Context version 2, prepare on Redis, Busy Session =
 * `policy`) → Agent Core (version 2, OpenAI on the harness's scripted model, Messages JSON) → Save Turn (Agent
 * Context version 2, persist: it finds prepare's busy_token itself) → Respond with Answer; each node's error
 * output → Respond with Error (HTTP 400 `{error}`), as examples/agent-context-chat.json routes them. Both
 * answers carry `execution_id`, so the test can tell which worker ran it. Credential references name only their
 * type: the harness points them at its imported credentials (and sets the Agent Context key prefix).
 */
export function busySessionWorkflow(policy: LockingPolicy): WorkflowJson {
	const onError = { onError: 'continueErrorOutput' };
	const busyOptions = {
		busyPolicy: policy,
		busyTtlSeconds: BUSY_TTL_SECONDS,
		busyWaitSeconds: BUSY_WAIT_SECONDS,
	};
	const to = (target: string) => [{ node: target, type: 'main', index: 0 }];
	const routed = (next: string) => ({ main: [to(next), to('Respond with Error')] });
	return {
		id: `agentCoreBusy${policy[0].toUpperCase()}${policy.slice(1)}`,
		name: `Agent Core: two messages racing on one session (Busy Session ${policy})`,
		nodes: [
			node(
				'Webhook',
				'n8n-nodes-base.webhook',
				2,
				0,
				{
					httpMethod: 'POST',
					path: BUSY_WEBHOOKS[policy],
					responseMode: 'responseNode',
					options: {},
				},
				{ webhookId: WEBHOOK_IDS[policy] },
			),
			node(
				'Load History',
				'n8n-nodes-agent-core.agentContext',
				2,
				240,
				{
					operation: 'prepare',
					storage: 'redis',
					sessionId: '={{ $json.body.session_id }}',
					userMessage: '={{ $json.body.prompt }}',
					window: 'allLiveTurns',
					options: busyOptions,
				},
				{ ...onError, credentials: redis },
			),
			node(
				'Agent Core',
				'n8n-nodes-agent-core.agentCore',
				2,
				480,
				{
					provider: 'openai',
					model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' },
					inputMode: 'messages',
					messagesJson: '={{ $json.messages_json }}',
					options: {
						sessionId: '={{ $json.session_id }}',
						developerText: 'You are a helpful assistant in an ongoing conversation.',
						maxSteps: 2,
						timeout: 60,
					},
				},
				{ ...onError, credentials: credential('agentCoreOpenAiApi') },
			),
			node(
				'Save Turn',
				'n8n-nodes-agent-core.agentContext',
				2,
				720,
				{
					operation: 'persist',
					storage: 'redis',
					sessionId: '={{ $json.session_id }}',
					messages: '={{ $json.messages }}',
					options: {},
				},
				{ ...onError, credentials: redis },
			),
			node('Respond with Answer', 'n8n-nodes-base.respondToWebhook', 1.1, 960, {
				respondWith: 'json',
				responseBody:
					"={{ JSON.stringify({ final_answer: $json.final_answer, finish_reason: $json.finish_reason, session_id: $json.session_id, history_turns: $('Load History').item.json.history_turns, context: $json.context, execution_id: $execution.id }) }}",
				options: {},
			}),
			node('Respond with Error', 'n8n-nodes-base.respondToWebhook', 1.1, 960, {
				respondWith: 'json',
				responseBody: '={{ JSON.stringify({ error: $json.error, execution_id: $execution.id }) }}',
				options: { responseCode: 400 },
			}),
		],
		connections: {
			Webhook: { main: [to('Load History')] },
			'Load History': routed('Agent Core'),
			'Agent Core': routed('Save Turn'),
			'Save Turn': routed('Respond with Answer'),
		},
		settings: { executionOrder: 'v1' },
	};
}

/** One held reply: `arrived` resolves when the model call came, and the call is answered once `release()` is called. */
export interface HeldReply {
	arrived: Promise<void>;
	release(): void;
}

/**
 * The harness's model (e2eModel, which answers a `[chat]` turn naming its message and how many earlier messages
 * came with it), except that a call whose last user message was held with `hold` waits for its release.
 */
export class HoldingModel {
	private readonly held = new Map<
		string,
		{ arrived: () => void; released: Promise<void>; release: () => void }
	>();

	readonly script = async (request: ScriptedRequest): Promise<ScriptedReply> => {
		const hold = this.held.get(lastUserMessageOf(request));
		if (hold) {
			hold.arrived();
			await hold.released;
		}
		return e2eModel(request);
	};

	hold(userMessage: string): HeldReply {
		let arrived!: () => void;
		let release!: () => void;
		const arrival = new Promise<void>((resolve) => (arrived = resolve));
		const released = new Promise<void>((resolve) => (release = resolve));
		this.held.set(userMessage, { arrived, released, release });
		return { arrived: arrival, release };
	}

	/** Lets every held call be answered (after a scenario, so that no execution is left waiting on the model). */
	releaseAll(): void {
		for (const hold of this.held.values()) hold.release();
		this.held.clear();
	}
}
