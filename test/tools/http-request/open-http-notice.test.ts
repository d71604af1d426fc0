// http_request allowed with nothing that limits its hosts says so in the output's trace (issue #28), the panel's notice in the run.
import { OPEN_HTTP_REQUEST_NOTICE } from '../../../src/agent/setup/configure-run';
import { runAgent } from '../../../src/agent/run-agent';
import { final, modelFor, useScriptedServer } from '../../support/agent';

describe('the open http_request notice', () => {
	const server = useScriptedServer();

	async function firstStepNotices(config: Record<string, unknown>) {
		server().setScript([final('done')]);
		const result = await runAgent({
			model: modelFor(server()),
			prompt: 'hi',
			config: { model: 'gpt-4o-mini', ...config },
		});
		expect(result.finish_reason).toBe('final');
		return result.trace[0].notices;
	}

	it('is on the first step when http_request is allowed without allowed_domains', async () => {
		expect(await firstStepNotices({ allowed_tools: ['http_request'] })).toEqual([
			OPEN_HTTP_REQUEST_NOTICE,
		]);
		expect(OPEN_HTTP_REQUEST_NOTICE).toMatch(/^http_request may reach any public host/);
	});

	it('is absent when allowed_domains or egress_hosts "from_prompt" limits the hosts, or http_request is not allowed', async () => {
		expect(
			await firstStepNotices({
				allowed_tools: ['http_request'],
				tool_settings: { http_request: { allowed_domains: ['api.example.com'] } },
			}),
		).toBeUndefined();
		expect(
			await firstStepNotices({
				allowed_tools: ['http_request'],
				tool_settings: { http_request: { egress_hosts: 'from_prompt' } },
			}),
		).toBeUndefined();
		expect(await firstStepNotices({ allowed_tools: ['json_transform'] })).toBeUndefined();
	});
});
