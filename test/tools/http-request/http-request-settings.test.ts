import { ConfigError, resolveConfig } from '../../../src/settings/config';
import { domainEntryProblem } from '../../../src/tools/http-request/address-policy';
import { checkHttpRequestSettings } from '../../../src/tools/http-request/settings';
import { ToolRegistry } from '../../../src/tools/registry';
import {
	context,
	PRIVATE_ALLOWED,
	run,
	startCanary,
	useLoopbackGuard,
} from '../../support/servers/http-servers';

// allowed_domains takes host names; an entry shaped like a URL would match no host and make every call
// fail, so it is refused where it is configured, by one rule (the credential's path is in
// agent-core-tool-credentials.test.ts).
useLoopbackGuard();

describe('the allowed_domains entry rule', () => {
	it.each([
		'api.example.com',
		'API.Example.com.',
		'*.example.com',
		'bücher.example',
		'internal_host',
		'localhost',
		'127.0.0.1',
		'::1',
		'[::1]',
	])('accepts %s', (entry) => {
		expect(domainEntryProblem(entry)).toBeUndefined();
	});

	it.each([
		[
			'https://api.example.com/v1',
			'is not a host name: it has a scheme and a path',
			'write the host name only, e.g. api.example.com',
		],
		[
			'api.example.com/v1',
			'is not a host name: it has a path',
			'write the host name only, e.g. api.example.com',
		],
		[
			'api.example.com:8443',
			'is not a host name: it has a port',
			'write the host name only, e.g. api.example.com',
		],
		['[::1]:8080', 'is not a host name: it has a port', 'write the host name only, e.g. ::1'],
		[
			'api.example.com?key=1',
			'is not a host name: it has a query or fragment',
			'write the host name only, e.g. api.example.com',
		],
		[
			'http://user@api.example.com',
			'is not a host name: it has a scheme and a user name',
			'write the host name only, e.g. api.example.com',
		],
		[
			'*.example.com/',
			'is not a host name: it has a path',
			'write the host name only, e.g. *.example.com',
		],
		[
			'api example.com',
			'is not a host name: it has spaces',
			'write the host name only, e.g. api.example.com',
		],
		['*', 'is not a host name', 'write the host name only, e.g. api.example.com'],
		[
			'*.10.0.0.1',
			'puts *. before an IP address, which has no subdomains',
			'write the address only, e.g. 10.0.0.1',
		],
	])('refuses %j, naming it and the fix', (entry, reason, fix) => {
		expect(domainEntryProblem(entry)).toEqual({ reason: `"${entry.trim()}" ${reason}`, fix });
	});

	it('reports every unusable entry with its index', () => {
		expect(
			checkHttpRequestSettings({
				allowed_domains: ['api.example.com', 'https://api.example.com/v1', 'api.example.com:8443'],
			}),
		).toEqual([
			'allowed_domains[1]: "https://api.example.com/v1" is not a host name: it has a scheme and a path; write the host name only, e.g. api.example.com',
			'allowed_domains[2]: "api.example.com:8443" is not a host name: it has a port; write the host name only, e.g. api.example.com',
		]);
	});

	it('refuses a blank entry, which left fixed headers free to go to any host', () => {
		// Blank entries are dropped when the settings are read, so ["  "] would have meant "any host".
		expect(
			checkHttpRequestSettings({ allowed_domains: ['  '], headers: { 'x-api-key': 'k-123456' } }),
		).toEqual([
			'allowed_domains[0]: an entry is blank; remove it, or write a host name such as api.example.com',
		]);
	});
});

describe('an unusable allowed_domains entry is refused wherever it is configured', () => {
	it('in tool settings handed to the tool: before any connection', async () => {
		const canary = await startCanary();
		const settings = { ...PRIVATE_ALLOWED, allowed_domains: [`http://127.0.0.1:${canary.port}/`] };
		await expect(run({ url: `${canary.url}/` }, context(settings))).rejects.toThrow(
			`http_request is misconfigured: tool_settings.http_request.allowed_domains[0]: "http://127.0.0.1:${canary.port}/" is not a host name: it has a scheme, a port and a path; write the host name only, e.g. 127.0.0.1`,
		);
		expect(canary.connections).toBe(0);
	});

	it('in a CLI config (or Tool Settings in n8n): when the run is configured', () => {
		const config = {
			model: 'm',
			allowed_tools: ['http_request'],
			tool_settings: { http_request: { allowed_domains: ['https://api.example.com/v1'] } },
		};
		let refusal: unknown;
		try {
			resolveConfig(config, new ToolRegistry());
		} catch (error) {
			refusal = error;
		}
		expect(refusal).toBeInstanceOf(ConfigError);
		expect((refusal as ConfigError).message).toContain(
			'tool_settings.http_request.allowed_domains[0]: "https://api.example.com/v1" is not a host name: it has a scheme and a path; write the host name only, e.g. api.example.com',
		);
	});
});
