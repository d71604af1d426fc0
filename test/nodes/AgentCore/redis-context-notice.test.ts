// Allowing Redis Context on version 2 says where its Redis credential is (issue #48), by the picker's own label.
import { NodeHelpers, type INodeParameters, type INodeProperties } from 'n8n-workflow';
import { AgentCore } from '../../../nodes/AgentCore/AgentCore.node';
import { CREDENTIAL_LABELS } from '../../../nodes/AgentCore/V2/credential-labels';

const description = new AgentCore().nodeVersions[2].description;
const notice = description.properties.find(
	(property) => property.name === 'redisContextNotice',
) as INodeProperties;

/** Whether n8n's editor shows the notice for these panel values (n8n's own displayParameter, defaults filled in). */
function shown(values: INodeParameters): boolean {
	const withDefaults = NodeHelpers.getNodeParameters(
		description.properties,
		values,
		true,
		false,
		null,
		description,
	)!;
	return NodeHelpers.displayParameter(withDefaults, notice, null, description);
}

describe('the Redis Context notice (version 2)', () => {
	it('is a notice naming Governance and the picker by the label the picker has', () => {
		expect(notice).toMatchObject({ type: 'notice' });
		expect(notice.displayName).toContain('turn on Governance');
		expect(notice.displayName).toContain(`"${CREDENTIAL_LABELS.agentCoreRedisApi}"`);
		const picker = description.credentials!.find((entry) => entry.name === 'agentCoreRedisApi');
		expect(picker?.displayName).toBe(CREDENTIAL_LABELS.agentCoreRedisApi);
	});

	it('shows while Redis Context is among the allowed tools and Governance is off, and only then', () => {
		expect(shown({ allowedTools: ['redis_context'] })).toBe(true);
		expect(shown({ allowedTools: ['json_transform', 'redis_context', 'http_request'] })).toBe(true);
		expect(shown({ allowedTools: ['redis_context'], governance: true })).toBe(false);
		expect(shown({ allowedTools: ['json_transform'] })).toBe(false);
		expect(shown({ allowedTools: [] })).toBe(false);
		expect(shown({})).toBe(false);
	});
});
