// Issue #52: replay and fork of runs with sub-agents. The parent's sub-agent call is answered from its record (the
// recorded observation, as any tool's), the child's own row replays as any run, and a fork after the call does not
// run the child again.
import { auditSinkFor, closeAuditSinks } from '../../src/audit/postgres-sink';
import { forkAuditedRun } from '../../src/replay/fork';
import { replayRecord } from '../../src/replay/replay';
import { action, final, modelFor, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';
import { postgresEnvironment, query, useTestDatabase } from '../support/postgres';
import {
	ONE_CALL,
	TWO_CALLS,
	ask,
	auditedSubAgentRun,
	subAgentConfig,
} from '../audit/sub-agent-run';

describe('replay of runs with sub-agents', () => {
	const server = useScriptedServer();
	const database = useTestDatabase();
	afterEach(() => closeAuditSinks());

	const read = async (runId: string) => (await auditSinkFor(database().url).read(runId))!;
	const run = (options: Parameters<typeof auditedSubAgentRun>[2] = {}) =>
		auditedSubAgentRun(server(), database().url, options);

	it("audit replay of the parent answers the sub-agent's call from the record: same, no model asked, the child not run", async () => {
		const result = await run();
		const asked = server().requests.length;
		const report = await replayRecord(await read(result.audit.run_id));
		expect(report.differences).toEqual([]);
		expect(report).toMatchObject({
			same: true,
			replayed: { finish_reason: 'final', final_answer: 'Researcher says 7.', steps: 2 },
			answered_from_record: { model_turns: 2, tool_calls: 1 },
		});
		expect(server().requests).toHaveLength(asked);
		expect(result.runs).toEqual([{ value: 7 }]);
	});

	it("a batch of sub-agent calls replays the same, each call's observation from the record", async () => {
		const result = await run({
			script: TWO_CALLS,
			config: subAgentConfig({ max_parallel_calls: 2 }),
			sideEffects: true,
		});
		const report = await replayRecord(await read(result.audit.run_id));
		expect(report).toMatchObject({
			same: true,
			differences: [],
			answered_from_record: { tool_calls: 2 },
		});
	});

	it("the child's own row replays as any run: its lookup and answer from its record", async () => {
		const result = await run();
		const child = await read(result.trace[0].sub_run!.run_id!);
		const report = await replayRecord(child);
		expect(report).toMatchObject({
			same: true,
			differences: [],
			replayed: { finish_reason: 'final', final_answer: 'the value is 7', steps: 2 },
			answered_from_record: { model_turns: 2, tool_calls: 1 },
		});
	});

	it('a fork from the step after the sub-agent call takes its observation from the record: the child does not run again', async () => {
		const result = await run();
		const asked = server().requests.length;
		const rows = async () =>
			(await query(database().url, 'SELECT run_id FROM agent_core_audit_runs')).length;
		const before = await rows();
		server().setScript([final('Forked: 7.')]);
		const forked = await forkAuditedRun({
			record: await read(result.audit.run_id),
			step: 1,
			model: modelFor(server()),
			audit: { postgres: database().url, waitMs: 5_000 },
		});
		expect(forked).toMatchObject({ finish_reason: 'final', final_answer: 'Forked: 7.' });
		expect(forked.trace[0].observation).toBe(result.trace[0].observation);
		expect(forked.trace[0]).not.toHaveProperty('sub_run');
		// One model call (the fork's answer); no lookup; one new row (the fork's), none of a child.
		expect(server().requests).toHaveLength(asked + 1);
		expect(result.runs).toEqual([{ value: 7 }]);
		expect(await rows()).toBe(before + 1);
		expect((await read(forked.audit!.run_id)).forked_from).toEqual({
			run_id: result.audit.run_id,
			step: 1,
		});
	});

	it("a fork from the sub-agent's step with its observation edited: the model goes on from the edit, the child not run", async () => {
		const result = await run();
		const asked = server().requests.length;
		server().setScript([final('Edited: 8.')]);
		const forked = await forkAuditedRun({
			record: await read(result.audit.run_id),
			step: 1,
			observation: 'the value is 8',
			model: modelFor(server()),
		});
		expect(forked.final_answer).toBe('Edited: 8.');
		expect(server().requests).toHaveLength(asked + 1);
		expect(JSON.stringify(server().requests[asked].messages)).toContain('the value is 8');
	});

	it('a fork from a step before the sub-agent call, whose live model calls it: an error observation, no child run', async () => {
		const result = await run({
			script: [
				action('lookup', { value: 1 }),
				...ONE_CALL.slice(0, 3),
				final('Researcher says 7.'),
			],
			config: subAgentConfig({ allowed_tools: ['researcher', 'lookup'] }),
		});
		expect(result.trace.map((step) => step.action?.tool ?? 'final')).toEqual([
			'lookup',
			'researcher',
			'final',
		]);
		const asked = server().requests.length;
		server().setScript([ask('find it again'), final('Could not ask.')]);
		const forked = await forkAuditedRun({
			record: await read(result.audit.run_id),
			step: 1,
			model: modelFor(server()),
		});
		expect(forked.trace[1].error?.message).toContain('researcher is not available outside its run');
		expect(forked.trace[1]).not.toHaveProperty('sub_run');
		expect(server().requests).toHaveLength(asked + 2);
	});

	it('through the CLI: audit verify of the parent checks the link (exit 0, then 3 naming the step), audit replay is the same', async () => {
		const result = await run();
		const cli = (args: string[]) => runCli(['audit', ...args], postgresEnvironment());
		const verify = ['verify', '--postgres', database().url, '--run', result.audit.run_id];
		const verified = await cli(verify);
		expect(verified).toMatchObject({ code: 0, stderr: '' });
		expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, linked_runs: 1 });
		const replayed = await cli([
			'replay',
			'--postgres',
			database().url,
			'--run',
			result.audit.run_id,
		]);
		expect(replayed).toMatchObject({ code: 0, stderr: '' });
		expect(JSON.parse(replayed.stdout)).toMatchObject({ same: true });
		await query(database().url, 'DELETE FROM agent_core_audit_runs WHERE run_id = $1', [
			result.trace[0].sub_run!.run_id,
		]);
		const broken = await cli(verify);
		expect(broken.code).toBe(3);
		expect(JSON.parse(broken.stdout).first_mismatch.part).toBe('step 1 sub_run');
	});
});
