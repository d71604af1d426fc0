import { describeWorkerCrashInQueueMode } from './support/worker-crash-scenarios';

describeWorkerCrashInQueueMode(2);
