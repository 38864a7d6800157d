/**
 * A gateway's approval side in a process of its own, to be killed: it asks for one approval on the
 * Redis at argv[2] (key prefix argv[3], lease argv[4] ms), prints the request's id as a JSON line,
 * and waits. Run as: node --import tsx approval-holder.ts <redis url> <prefix> <lease ms>
 */
import { argsDigest } from '../../src/approvals/binding.js';
import { ApprovalBroker } from '../../src/approvals/broker.js';
import { RedisApprovalStore } from '../../src/node/redis/approval-store-redis.js';

const [url, prefix, lease] = process.argv.slice(2);
const store = new RedisApprovalStore({ url, prefix, leaseMs: Number(lease) });
await store.whenReady();
const broker = new ApprovalBroker({ store });
const { id, outcome } = broker.ask({
  tenant: 'acme',
  hook: 'guard',
  host: 'picoclaw',
  tool: 'exec',
  argsDigest: await argsDigest({ command: 'rm -rf /tmp/x' }),
  configRevision: 'rev-1',
  expiresAt: Date.now() + 10 * 60_000,
});
// Printed once it is recorded: another replica can list it from then on.
for (;;) {
  if ((await store.get('acme', id)) !== undefined) break;
  await new Promise((r) => setImmediate(r));
}
process.stdout.write(`${JSON.stringify({ id })}\n`);
void outcome.then((o) => process.stdout.write(`${JSON.stringify({ outcome: o })}\n`));
setInterval(() => {}, 60_000);
