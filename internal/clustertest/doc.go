// Package clustertest runs a JetStream cluster of embedded nats-servers in
// one process, for tests (and anyone who wants a cluster in one process):
// Start runs the servers on loopback ports; a test stops and restarts a
// server to kill a stream leader or pause it. ServerOptions reads a
// nats-server configuration file (deploy/nats) so the cluster enforces its
// users and permissions, and Cluster.Open, UserOptions and Creds connect
// as Toolstream's identities. It was package cluster's harness; package
// cluster keeps the production code (Exclusive, Setup) and its tests use
// this one.
//
// Concurrency: a Cluster's methods are safe for concurrent use. Everything
// waits by polling with a deadline; nothing sleeps to wait.
package clustertest
