// Package cluster takes Toolstream beyond one machine and proves it keeps
// its promises there.
//
// For operation:
//   - Exclusive runs projections so that across the processes of one
//     service each projection (and, with the model subjects partitioned
//     by bus.Config.Partitions, each partition's assembler:
//     AssemblerPartitions) has exactly one active runner, with takeover
//     when its holder dies (projector.Lease; invariants 3, 4 and 6 make an
//     overlap harmless).
//
// Its tests, on package clustertest's clusters of embedded servers, show: streams get 3 replicas on a cluster (asked of the
// servers) and model subjects partition; a workload of thousands of calls
// survives killing the stream leader, SIGKILLing the processor process and
// pausing a server with no call lost, none run twice and every projection
// equal to its replay; one assembler per partition with takeover; a
// producer's credentials cannot publish a call or read another tenant;
// every NATS configuration in deploy/ parses with nats-server's own parser
// and every docker-compose service's command line is accepted by the
// binary; the binary works against a cluster. BenchmarkPipelineOnCluster
// measures the whole path with 1 and 4 partitions against raw JetStream.
//
// Concurrency: an Exclusive's methods are safe for concurrent use.
package cluster
