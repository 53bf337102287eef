// Package cluster proves Toolstream's promises beyond one machine, and holds
// the helpers that take it there: a JetStream cluster of embedded
// nats-servers on loopback ports in one process (Start), whose servers a
// test stops and restarts to kill a stream leader or pause a server.
//
// Its tests:
//   - cluster mode: streams get 3 replicas on a cluster (asked of the
//     servers), partitions map model subjects;
//   - faults: a workload of thousands of calls through ingest, the
//     assembler and executors while the stream leader is killed and
//     restarted, the processor process is SIGKILLed and restarted, and a
//     server is paused; afterwards no completed call is lost, none ran twice
//     and every projection's digest equals a replay's (invariants 3-6);
//   - permissions: the deploy/ configuration's role users, and a producer's
//     credentials that cannot publish a call or read another tenant
//     (invariant 7);
//   - deployment: every NATS configuration in deploy/ parses with
//     nats-server's own parser and every docker-compose service's command
//     line is accepted by the toolstream binary.
//
// Everything waits by polling with a deadline; nothing sleeps to wait.
package cluster
