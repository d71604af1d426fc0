// A request enters no room of a feature it does not use (issue #49): bench/request-route.js's one measured request.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * The built files of features the measured request (Agent Core v2 in n8n's engine, a chat memory, one calculator
 * call, the answer) does not use: no hooks nor guardrails, no sub-agent, no MCP server, no file, no stream, no
 * approval, audit or durable run, no typed answer, no refused field. Each folder ends with `/`.
 */
const UNUSED = [
	'src/agent/hooks/',
	'src/guardrails/',
	'src/tools/mcp/',
	'src/agent/setup/before-run.js',
	'src/agent/setup/mcp-run.js',
	'src/agent/setup/input-files.js',
	'src/agent/calls/call-hooks.js',
	'src/agent/subagent/index.js',
	'src/agent/subagent/configure-agents.js',
	'src/agent/subagent/run-sub-agent.js',
	'src/agent/resumed-run.js',
	'src/agent/pause/checkpoints.js',
	'src/agent/pause/progress.js',
	'src/agent/model/answer/',
	'src/agent/protocol/typed-answer.js',
	'src/providers/file-body.js',
	'src/providers/file-parts.js',
	'src/providers/streamed-text.js',
	'src/providers/refused-fields.js',
	'src/run-state/',
	'nodes/AgentCore/execute/governance/approval.js',
	'nodes/AgentCore/execute/governance/audit.js',
	'nodes/AgentCore/execute/governance/durable-runs.js',
	'nodes/AgentCore/execute/governance/execution-redis.js',
	'nodes/AgentCore/execute/inputs/guardrail-workflow.js',
	'nodes/AgentCore/execute/inputs/mcp-servers.js',
	'nodes/AgentCore/execute/inputs/read-files.js',
	'nodes/AgentCore/execute/inputs/tool-credentials.js',
	'nodes/AgentCore/execute/inputs/workflow-tools.js',
	'nodes/AgentCore/execute/output/guardrail-notes.js',
	'nodes/AgentCore/execute/output/streaming.js',
];

describe('one request through Agent Core in n8n’s engine', () => {
	it('enters no file of a feature it does not use: hooks, guardrails, sub-agents, MCP, files, streaming, approval, audit, durable runs', () => {
		const measured = JSON.parse(
			execFileSync(process.execPath, [join(ROOT, 'bench', 'request-route.js'), '--json'], {
				cwd: ROOT,
				encoding: 'utf8',
			}),
		) as { crossed: string[] };
		const entered = measured.crossed.filter((file) =>
			UNUSED.some((unused) => (unused.endsWith('/') ? file.startsWith(unused) : file === unused)),
		);
		expect(entered).toEqual([]);
		// The request itself ran: the loop, the one call path, the model adapter and the memory input.
		expect(measured.crossed).toEqual(
			expect.arrayContaining([
				'src/agent/run-agent.js',
				'src/agent/calls/run-calls.js',
				'src/providers/openai/model.js',
				'nodes/AgentCore/execute/inputs/connected-memory.js',
			]),
		);
	});
});
