// The pieces of the worker-crash tests (issue #30): the workflows, an ordering API that honours Idempotency-Key, and the scripted model of one run.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readObservation } from '../../../../src/agent/protocol/prompt';
import type { ScriptedReply, ScriptedRequest } from '../../../../src/demo/scripted-server';
import type { WorkflowJson } from '../../../../scripts/n8n-local';
import { promptOf } from '../model-script';
import type { AgentCoreInN8n } from '../n8n-harness';

/** The webhook paths of the crash workflows. */
export const CRASH_WEBHOOKS = {
	/** Durable Runs with the default run key (execution id, run index, item index): n8n 1.x re-processes under the same id. */
	durable: 'agent-core-crash-durable',
	/** Durable Runs keyed by the request's Idempotency-Key header: what a retry (a new execution id) can find. */
	durableByRequestKey: 'agent-core-crash-request-key',
	/** The same workflow without Durable Runs: the control. */
	plain: 'agent-core-crash-plain',
} as const;
export type CrashWebhook = keyof typeof CRASH_WEBHOOKS;

const WEBHOOK_IDS: Record<CrashWebhook, string> = {
	durable: '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e01',
	durableByRequestKey: '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e02',
	plain: '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e03',
};
const RUN_KEY_FROM_REQUEST = "={{ $('Webhook').item.json.headers['idempotency-key'] }}";

/**
 * Webhook → Agent Core (version 2, OpenAI on the harness's scripted model, http_request allowed to POST to
 * loopback) → Respond to Webhook with Agent Core's item. `durable`: Governance → Durable Runs on, with the
 * Redis and Run State credentials; `durableByRequestKey` sets Run Key to the request's Idempotency-Key header.
 * Credential references name only their type: the harness points them at its imported credentials.
 */
export function crashWorkflow(kind: CrashWebhook, id: string): WorkflowJson {
	const durable = kind !== 'plain';
	const credential = (type: string) => ({ [type]: { id: `${type}1`, name: type } });
	return {
		id,
		name: `Agent Core: a POST, then a worker crash (${kind})`,
		nodes: [
			{
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: WEBHOOK_IDS[kind],
				parameters: {
					httpMethod: 'POST',
					path: CRASH_WEBHOOKS[kind],
					responseMode: 'responseNode',
					options: {},
				},
			},
			{
				name: 'Agent Core',
				type: 'n8n-nodes-agent-core.agentCore',
				typeVersion: 2,
				position: [240, 0],
				parameters: {
					provider: 'openai',
					model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' },
					inputMode: 'prompt',
					prompt: '={{ $json.body.prompt }}',
					allowedTools: ['http_request'],
					...(durable ? { governance: true, durableRuns: true } : {}),
					...(kind === 'durableByRequestKey' ? { runKey: RUN_KEY_FROM_REQUEST } : {}),
					options: {
						developerText:
							'Place the order the user asks for with one http_request POST, then confirm it.',
						// The order target listens on loopback, which http_request refuses unless allowed.
						toolSettingsJson: JSON.stringify({
							http_request: {
								allowed_domains: ['127.0.0.1'],
								allowed_methods: ['POST'],
								allow_private_network: true,
							},
						}),
						maxSteps: 4,
						timeout: 150,
					},
				},
				credentials: {
					...credential('agentCoreOpenAiApi'),
					...(durable
						? { ...credential('agentCoreRedisApi'), ...credential('agentCoreRunStateApi') }
						: {}),
				},
			},
			{
				name: 'Respond',
				type: 'n8n-nodes-base.respondToWebhook',
				typeVersion: 1.1,
				position: [480, 0],
				parameters: { respondWith: 'firstIncomingItem', options: {} },
			},
		],
		connections: {
			Webhook: { main: [[{ node: 'Agent Core', type: 'main', index: 0 }]] },
			'Agent Core': { main: [[{ node: 'Respond', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

/** The crash workflows of one suite, and their ids. */
export interface CrashWorkflows {
	workflows: WorkflowJson[];
	idOf: Record<CrashWebhook, string>;
}

/**
 * The crash workflows a line's suite imports (1.x re-processes under the same execution id, 2.x needs a key
 * from the request), under workflow ids of this suite alone. The default Run Key names the workflow, the
 * node, the execution id and the item, and every fresh n8n database counts execution ids from 1 again: with
 * fixed workflow ids, the next suite on the same Redis (within the checkpoints' day) would find this one's
 * checkpoint under its own execution 1, and Agent Core refuses a run key holding another request's run.
 */
export function workerCrashWorkflows(line: 1 | 2): CrashWorkflows {
	const suite = randomBytes(4).toString('hex');
	const idOf: Record<CrashWebhook, string> = {
		durable: `crashDurable${suite}`,
		durableByRequestKey: `crashRequestKey${suite}`,
		plain: `crashPlain${suite}`,
	};
	const kinds: CrashWebhook[] = [line === 1 ? 'durable' : 'durableByRequestKey', 'plain'];
	return { workflows: kinds.map((kind) => crashWorkflow(kind, idOf[kind])), idOf };
}

/** One request that reached the order target. */
export interface ReceivedOrder {
	run: string;
	idempotencyKey?: string;
	/** What the target answered; a request repeating an Idempotency-Key it has seen gets the first answer again. */
	answer: { order: number; status: string };
	/** True when the key was new: the order was carried out. */
	carriedOut: boolean;
}

/** An ordering API on loopback that honours Idempotency-Key as the IETF draft says: a repeated key is answered, not carried out again. */
export interface OrderTarget {
	url: string;
	received: ReceivedOrder[];
	/** The requests of one run (the `run` query parameter). */
	of(run: string): ReceivedOrder[];
}

export function useOrderTarget(): () => OrderTarget {
	const received: ReceivedOrder[] = [];
	const target: OrderTarget = {
		url: '',
		received,
		of: (run) => received.filter((order) => order.run === run),
	};
	let carriedOut = 0;
	const server = http.createServer((request, response) => {
		request.resume();
		request.on('end', () => {
			const run = new URL(request.url ?? '/', 'http://target').searchParams.get('run') ?? '';
			const header = request.headers['idempotency-key'];
			const idempotencyKey = Array.isArray(header) ? header[0] : header;
			const earlier =
				idempotencyKey === undefined
					? undefined
					: received.find((order) => order.idempotencyKey === idempotencyKey);
			const answer = earlier?.answer ?? { order: ++carriedOut, status: 'accepted' };
			received.push({ run, idempotencyKey, answer, carriedOut: !earlier });
			response
				.writeHead(earlier ? 200 : 201, { 'content-type': 'application/json' })
				.end(JSON.stringify(answer));
		});
	});
	beforeAll(async () => {
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		target.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	});
	afterAll(async () => {
		server.closeAllConnections();
		await new Promise((resolve) => server.close(resolve));
	});
	return () => target;
}

/** How many tool observations a model call carries: 0 for the call of step 1, 1 for step 2. */
function observationsIn(request: ScriptedRequest): number {
	return request.messages.filter(
		(message) => message.role === 'user' && readObservation(message.content) !== undefined,
	).length;
}

/**
 * The model of one crash run, told apart from every other run by `tag` in its prompt: step 1 asks for the
 * POST; step 2's call is held until `release()` (the worker is killed meanwhile), later ones are answered at
 * once with the final answer built from the POST's answer.
 */
export class CrashRunModel {
	private released = false;
	private releaseHeld: () => void = () => undefined;
	private readonly held = new Promise<void>((resolve) => (this.releaseHeld = resolve));

	constructor(
		readonly tag: string,
		private readonly orderUrl: string,
	) {}

	get prompt(): string {
		return `Place order ${this.tag}`;
	}

	reply(request: ScriptedRequest): ScriptedReply | Promise<ScriptedReply> {
		const observation = [...request.messages]
			.reverse()
			.map((message) => readObservation(message.content))
			.find((found) => found !== undefined);
		if (!observation)
			return JSON.stringify({
				type: 'action',
				tool: 'http_request',
				args: { method: 'POST', url: this.orderUrl, body: { item: this.tag } },
			});
		// http_request's observation: a status line, then the body.
		const answer = JSON.stringify({
			type: 'final',
			answer: finalAnswer(observation.text.slice(observation.text.indexOf('\n') + 1)),
		});
		return this.released ? answer : this.held.then(() => answer);
	}

	release(): void {
		this.released = true;
		this.releaseHeld();
	}

	/** The model calls of this run that asked for step `step` (counted by the observations they carry). */
	callsForStep(n8n: AgentCoreInN8n, step: 1 | 2): number {
		return n8n.model.requests.filter(
			(request) => promptOf(request) === this.prompt && observationsIn(request) === step - 1,
		).length;
	}
}

/** The final answer of a crash run, from the order target's answer to its POST. */
export const finalAnswer = (orderAnswer: string): string => `Order placed: ${orderAnswer}`;
