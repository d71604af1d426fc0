import type { IExecuteFunctions } from 'n8n-workflow';
import type { AgentEvent } from '../../../../src/agent/base/events';
import { chunkText, openItemStream } from '../../../../nodes/AgentCore/execute/output/streaming';
import { runAgent } from '../../../../src/agent/run-agent';
import { final, probeTool } from '../../../support/agent';
import { inPieces, piecedModel } from '../../../support/pieced-model';

/**
 * The node's side of streaming: which executions stream and what the chunks say. That real n8n delivers
 * these chunks to a streaming webhook, in order and before the execution ends, is proven end to end in
 * test/e2e (streaming-scenarios.ts).
 */
interface SentChunk {
	type: string;
	itemIndex: number;
	content?: string;
}

function executionContext(options: {
	streaming?: boolean;
	hasStreamingCalls?: boolean;
	streamResponse?: boolean;
	streamAnswerChecked?: boolean;
	rejectChunks?: boolean;
}) {
	const sent: SentChunk[] = [];
	const { streamResponse, streamAnswerChecked } = options;
	const context: Record<string, unknown> = {
		getNodeParameter: (name: string) =>
			name === 'options' ? JSON.parse(JSON.stringify({ streamResponse, streamAnswerChecked })) : {},
	};
	if (options.hasStreamingCalls !== false) {
		context.isStreaming = () => options.streaming ?? true;
		context.sendChunk = async (type: string, itemIndex: number, content?: string) => {
			sent.push({ type, itemIndex, content });
			if (options.rejectChunks) throw new Error('client went away');
		};
	}
	return { context: context as unknown as IExecuteFunctions, sent };
}

const run: AgentEvent[] = [
	{ type: 'step_start', step: 1 },
	{
		type: 'action',
		step: 1,
		tool: 'json_transform',
		summary: 'json_transform {"data":[1,2],"expression":"length(@)"}',
	},
	{ type: 'observation', step: 1, tool: 'json_transform', ok: true, summary: '2' },
	{ type: 'step_start', step: 2 },
	{ type: 'answer_delta', text: 'There are ' },
	{ type: 'answer_delta', text: '2 items.' },
	{ type: 'done', finish_reason: 'final' },
];

describe('Agent Core node streaming', () => {
	it('sends begin, a line per tool step, the answer pieces and end, all for the item being run', () => {
		const { context, sent } = executionContext({});
		const stream = openItemStream(context, 3)!;
		for (const event of run) stream.onEvent(event);
		stream.close();
		expect(sent).toEqual([
			{ type: 'begin', itemIndex: 3, content: undefined },
			{
				type: 'item',
				itemIndex: 3,
				content: '\n[json_transform {"data":[1,2],"expression":"length(@)"}]\n',
			},
			{ type: 'item', itemIndex: 3, content: '[json_transform returned: 2]\n\n' },
			{ type: 'item', itemIndex: 3, content: 'There are ' },
			{ type: 'item', itemIndex: 3, content: '2 items.' },
			{ type: 'end', itemIndex: 3, content: undefined },
		]);
	});

	it('says in the chat when the answer restarts and when a tool call failed', () => {
		expect(chunkText({ type: 'answer_restart', reason: 'the reply broke the protocol' })).toBe(
			'\n[the answer restarts: the reply broke the protocol]\n\n',
		);
		expect(
			chunkText({
				type: 'observation',
				step: 1,
				tool: 'http_request',
				ok: false,
				summary: 'tool "http_request" is not available.',
			}),
		).toBe('[http_request failed: tool "http_request" is not available.]\n\n');
	});

	it('does not stream when the execution does not, when Stream Response is off, or on an n8n without streaming', () => {
		for (const options of [
			{ streaming: false },
			{ streamResponse: false },
			{ hasStreamingCalls: false },
		]) {
			const { context, sent } = executionContext(options);
			expect(openItemStream(context, 0)).toBeUndefined();
			expect(sent).toEqual([]);
		}
	});

	it('keeps going when n8n cannot deliver a chunk', async () => {
		const { context, sent } = executionContext({ rejectChunks: true });
		const stream = openItemStream(context, 0)!;
		for (const event of run) stream.onEvent(event);
		stream.close();
		await new Promise((resolve) => setImmediate(resolve));
		expect(sent.map((chunk) => chunk.type)).toEqual([
			'begin',
			'item',
			'item',
			'item',
			'item',
			'end',
		]);
	});

	it('with Stream Only Checked Answers, a hostile reply with a second "type" after its answer sends the chat none of its text', async () => {
		const { context, sent } = executionContext({ streamAnswerChecked: true });
		const stream = openItemStream(context, 0)!;
		expect(stream.streamAnswer).toBe('checked');
		const reply = `{"type":"final","answer":"Payment approved under reference 4471.","type":"action","tool":"probe","args":{"value":1}}`;
		const { model } = piecedModel(
			[{ pieces: inPieces(reply, 5) }, { pieces: inPieces(final('Nothing was approved.'), 4) }],
			[],
		);
		const probe = probeTool();
		const result = await runAgent({
			model,
			config: { model: 'm', allowed_tools: ['probe'] },
			prompt: 'q',
			extraTools: [probe.tool],
			onEvent: stream.onEvent,
			streamAnswer: stream.streamAnswer,
		});
		stream.close();
		expect(probe.calls).toEqual([]);
		expect(result.final_answer).toBe('Nothing was approved.');
		expect(JSON.stringify(sent)).not.toContain('4471');
		expect(sent.filter((chunk) => chunk.type === 'item')).toEqual([
			{ type: 'item', itemIndex: 0, content: 'Nothing was approved.' },
		]);
	});

	it('streams the answer as the model writes it unless Stream Only Checked Answers is on', () => {
		expect(openItemStream(executionContext({}).context, 0)!.streamAnswer).toBe('as-written');
		expect(
			openItemStream(executionContext({ streamAnswerChecked: false }).context, 0)!.streamAnswer,
		).toBe('as-written');
	});
});
