import { DEMO_PROMPT } from '../../../src/demo/demo-model';
import type { ScriptedRequest } from '../../../src/demo/scripted-server';
import { e2eModel, promptOf } from './model-script';
import { WEBHOOKS, type AgentCoreInN8n } from './n8n-harness';

/** n8n's streamed chunk (the n8n-workflow StructuredChunk), one per NDJSON line of the response. */
interface Chunk {
	type: 'begin' | 'item' | 'end' | 'error';
	content?: string;
	metadata: {
		nodeId: string;
		nodeName: string;
		itemIndex: number;
		runIndex: number;
	};
}

/** What the client saw, in the order it saw it: each line of the body as it was read, then the body's end. */
type Arrival = { kind: 'chunk'; chunk: Chunk } | { kind: 'ended' };

/** Long enough to come in several chunks past the answer hold-back (48 characters). */
const ANSWER =
	'In stock and under 50 EUR: Desk lamp and USB-C hub. Both ship within two working days; the office chair is over budget and the notebook pack is out of stock.';

/**
 * A hang guard, not a speed assertion: if n8n held the chunks back until the execution ended, the gated
 * model reply below would wait for a chunk that never comes; after this long it answers anyway and the
 * test fails saying so.
 */
const GATE_LIMIT_MS = 30_000;

/**
 * POSTs to a production webhook and reads the NDJSON body as it arrives; `onChunk` sees each chunk the
 * moment its line is read, while the response is still open.
 */
export async function postAndRead(
	n8n: AgentCoreInN8n['n8n'],
	webhookPath: string,
	body: unknown,
	onChunk: (chunk: Chunk) => void,
) {
	const response = await fetch(n8n.webhookUrl(webhookPath), {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
		signal: AbortSignal.timeout(90_000),
	});
	const arrivals: Arrival[] = [];
	const decoder = new TextDecoder();
	let buffered = '';
	const take = (line: string) => {
		if (line.trim() === '') return;
		const chunk = JSON.parse(line) as Chunk;
		arrivals.push({ kind: 'chunk', chunk });
		onChunk(chunk);
	};
	for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
		buffered += decoder.decode(bytes, { stream: true });
		const lines = buffered.split('\n');
		buffered = lines.pop()!;
		lines.forEach(take);
	}
	take(buffered + decoder.decode());
	arrivals.push({ kind: 'ended' });
	return {
		status: response.status,
		contentType: response.headers.get('content-type') ?? '',
		arrivals,
	};
}

/** examples/agent-core-streaming.json: a Webhook in Response Mode Streaming → Agent Core; and the same with a chat model sub-node. */
export function describeStreamingWebhook(get: () => AgentCoreInN8n): void {
	describe('streaming webhook (examples/agent-core-streaming.json)', () => {
		it('streams begin, the tool step and the answer as n8n chunks, the step while the run still waits on the model', async () => {
			await streamsStepThenAnswer(get(), WEBHOOKS.streaming, 'openai');
		});

		it('streams the same way when the model is n8n’s OpenAI Chat Model sub-node (Responses API), its calls streamed', async () => {
			await streamsStepThenAnswer(get(), WEBHOOKS.chatModelStreaming, 'openai-responses');
		});
	});
}

/**
 * The catalogue question on a streaming webhook: begin, the tool step's two chunks and the answer in
 * several pieces, the step reaching the client while the run still waits on the model, every model call
 * streamed in the wire format `wire`.
 */
async function streamsStepThenAnswer(
	n8n: AgentCoreInN8n,
	webhook: string,
	wire: ScriptedRequest['provider'],
): Promise<void> {
	const get = () => n8n;
	const prompt = `${get().uniqueId(`streaming-${wire}`)} ${DEMO_PROMPT}`;
	let releaseGate: () => void = () => undefined;
	const stepChunkSeen = new Promise<void>((resolve) => (releaseGate = resolve));
	let gateGaveUp = false;
	// The model's second reply (after the observation) waits until the client has read the tool step's
	// chunk: the step must reach the client while the execution is still running.
	get().model.setScript(async (request: ScriptedRequest) => {
		const last = request.messages[request.messages.length - 1]?.content ?? '';
		if (promptOf(request) === prompt && last.startsWith('Observation from json_transform:')) {
			let timer: NodeJS.Timeout | undefined;
			const gaveUp = new Promise<void>(
				(resolve) => (timer = setTimeout(() => ((gateGaveUp = true), resolve()), GATE_LIMIT_MS)),
			);
			await Promise.race([stepChunkSeen, gaveUp]);
			clearTimeout(timer);
			return JSON.stringify({ type: 'final', answer: ANSWER });
		}
		return e2eModel(request);
	});
	try {
		const { status, contentType, arrivals } = await postAndRead(
			get().n8n,
			webhook,
			{ prompt },
			(chunk) => {
				if (chunk.type === 'item' && chunk.content?.startsWith('[json_transform returned:'))
					releaseGate();
			},
		);

		expect({ status, gateGaveUp }).toEqual({ status: 200, gateGaveUp: false });
		expect(contentType).toMatch(/application\/json/);
		const chunks = arrivals.flatMap((arrival) => (arrival.kind === 'chunk' ? [arrival.chunk] : []));
		const ours = chunks.filter((chunk) => chunk.metadata?.nodeName === 'Agent Core');
		expect(ours.map((chunk) => chunk.type)).toEqual([
			'begin',
			...ours.slice(1, -1).map(() => 'item'),
			'end',
		]);
		const items = ours.filter((chunk) => chunk.type === 'item').map((chunk) => chunk.content ?? '');
		expect(items[0]).toMatch(/^\n\[json_transform \{"data":\{"items":/);
		expect(items[1]).toBe('[json_transform returned: ["Desk lamp","USB-C hub"]]\n\n');
		expect(items.slice(2).join('')).toBe(ANSWER);
		// The model calls streamed, and the answer reached the caller in several pieces as it was written.
		const calls = get().model.requests.filter((request) => promptOf(request) === prompt);
		expect(calls.map((request) => [request.provider, request.streamed])).toEqual([
			[wire, true],
			[wire, true],
		]);
		expect(items.length - 2).toBeGreaterThanOrEqual(3);

		// Order, as the client read it: the first answer chunk before the end chunk, and that before the body ended.
		const indexOf = (test: (arrival: Arrival) => boolean) => arrivals.findIndex(test);
		const firstAnswer = indexOf(
			(arrival) =>
				arrival.kind === 'chunk' &&
				arrival.chunk.type === 'item' &&
				ANSWER.startsWith(arrival.chunk.content ?? '-'),
		);
		const end = indexOf(
			(arrival) =>
				arrival.kind === 'chunk' &&
				arrival.chunk.type === 'end' &&
				arrival.chunk.metadata.nodeName === 'Agent Core',
		);
		const ended = indexOf((arrival) => arrival.kind === 'ended');
		expect(firstAnswer).toBeGreaterThan(0);
		expect(firstAnswer).toBeLessThan(end);
		expect(end).toBeLessThan(ended);
	} finally {
		get().model.setScript(e2eModel);
	}
}
