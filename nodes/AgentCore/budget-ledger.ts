import type { IExecuteFunctions } from 'n8n-workflow';
import { RedisBudgetLedger, type BudgetLedger } from '../../src';
import { redisConnectionFromCredential } from '../shared/redis-credential';
import { requireRedisCredential } from './tool-credentials';

/**
 * The execution's shared-budget ledger, in the Redis of the node's Agent Core: Redis API credential: opened for
 * the first item with a shared budget, shared by the execution's items, closed when they are done.
 */
export class ExecutionLedger {
  private opened?: RedisBudgetLedger;

  async forItem(context: IExecuteFunctions, itemIndex: number): Promise<BudgetLedger> {
    requireRedisCredential(context, itemIndex, 'A shared budget (Limits → Shared Token Budget)');
    const connection = redisConnectionFromCredential(await context.getCredentials('agentCoreRedisApi', itemIndex));
    this.opened ??= new RedisBudgetLedger({ shared: connection });
    return this.opened;
  }

  async close(): Promise<void> {
    await this.opened?.close();
  }
}
