// Issue #50: the guardrails' decisions are part of the audit's record chain: a stored run with decisions verifies,
// and verify fails, naming the step, when one is edited or removed — so "no card number reached a tool" rests on it.
import { runAgent } from '../../src/agent/run-agent';
import { auditSinkFor, closeAuditSinks } from '../../src/audit/postgres-sink';
import { verifyRecord } from '../../src/audit/verify';
import { action, final, modelFor, useScriptedServer } from '../support/agent';
import { query, useTestDatabase } from '../support/postgres';
import { warmUpAuditedRun } from '../support/warm-up';

const STEPS = 'agent_core_audit_steps';

beforeAll(warmUpAuditedRun);

describe('guardrail decisions in the audit record', () => {
	const server = useScriptedServer();
	const database = useTestDatabase();
	afterEach(() => closeAuditSinks());

	async function storedRun() {
		server().setScript([
			action('json_transform', { data: ['card 4111 1111 1111 1111'], expression: 'length(@)' }),
			final('done'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: {
				model: 'm',
				allowed_tools: ['json_transform'],
				guardrails: [
					{
						name: 'no-cards',
						check: 'pii',
						kinds: ['credit_card'],
						on: ['tool_call'],
						action: 'redact',
					},
				],
			},
			prompt: 'count it',
			audit: { postgres: database().url, waitMs: 5_000 },
		});
		expect(result.audit).toMatchObject({ stored: true });
		return result as typeof result & { audit: { run_id: string } };
	}
	const verified = async (runId: string) =>
		verifyRecord((await auditSinkFor(database().url).read(runId))!);

	it('stores each decision with the step, and the stored run verifies', async () => {
		const result = await storedRun();
		expect(result.guardrails_tripped).toBe(1);
		const [row] = await query<{ extra: { guardrails: unknown[] } }>(
			database().url,
			`SELECT extra FROM ${STEPS} WHERE position = 0`,
		);
		expect(row.extra.guardrails).toEqual([
			expect.objectContaining({
				name: 'no-cards',
				point: 'before_tool',
				decision: 'redact',
				definition_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
				seen_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
				changed_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
			}),
		]);
		expect(JSON.stringify(row)).not.toContain('4111');
		expect((await verified(result.audit.run_id)).ok).toBe(true);
	});

	it.each([
		['edited', `jsonb_set(extra, '{guardrails,0,decision}', '"allow"')`],
		['removed', `extra - 'guardrails'`],
	])('a decision %s after the run fails verify, naming its step', async (_, change) => {
		const result = await storedRun();
		await query(database().url, `UPDATE ${STEPS} SET extra = ${change} WHERE position = 0`);
		const report = await verified(result.audit.run_id);
		expect(report.ok).toBe(false);
		expect(report.first_mismatch?.part).toBe('step 1');
	});
});
