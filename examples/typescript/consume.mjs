// @ts-check
//
// consume.mjs: a tenant's completed calls and their results, read from
// Toolstream with the NATS client for Node (nats) and @msgpack/msgpack, and
// printed one line each. docs/asyncapi.yaml describes every event this
// reads: the envelope's one-letter keys, each body's, and sealing.
//
//   npm install nats@2 @msgpack/msgpack@3
//   toolstream creds producer --tenant acme > acme.creds
//   NATS_URL=nats://127.0.0.1:4222 NATS_CREDS=acme.creds TENANT=acme node consume.mjs
//
// Environment: NATS_URL, NATS_CREDS (a .creds file: a producer of the
// tenant may subscribe to its calls and results and read its users' data
// keys), TENANT, COUNT (stop after that many events; 0 or unset: run until
// interrupted).
//
// Why JavaScript with JSDoc types and not a .ts file: Node 20, which CI
// runs, cannot run TypeScript without a build step, and an untranspiled
// .ts twin would drift from what CI runs. This file is TypeScript-checked
// as it is (// @ts-check; tsc --allowJs --checkJs --noEmit) and runs
// unchanged on Node 20 and later, so the example CI runs is the example
// you read.

import { connect, credsAuthenticator } from "nats";
import { decodeMulti, decode } from "@msgpack/msgpack";
import { createDecipheriv } from "node:crypto";
import { readFileSync } from "node:fs";

/**
 * The envelope every event starts with (docs/asyncapi.yaml, Envelope).
 * @typedef {object} Envelope
 * @property {string} id   the event's id, derived from its cause
 * @property {string} k    its kind: call.completed, exec.succeeded, …
 * @property {number} v    the body's schema version
 * @property {string} t    the tenant
 * @property {string} [u]  the end user
 * @property {string} [run]
 * @property {string} [r]  the model response
 * @property {string} [i]  the output item
 * @property {string} [c]  the provider's call id
 * @property {number|bigint} at  event time, Unix nanoseconds
 * @property {string} [kx] set when the body is sealed: "<scope>#<key id>"
 */

/**
 * The bodies printed here (the others are printed by kind alone).
 * @typedef {{n: string, a: Uint8Array, o: number}} CallCompleted
 * @typedef {{n: string, r: string, d?: string}} CallRejected
 * @typedef {{n: string, r: string, d?: string, pv?: {nb: number}}} CallIncomplete
 * @typedef {{n: string, k: string, res?: Uint8Array, sum: string, ref?: string}} CallSucceeded
 * @typedef {{n: string, k: string, e: string, m: string}} CallFailed
 */

const tenant = process.env.TENANT ?? "";
const count = Number(process.env.COUNT ?? "0");
if (!/^[A-Za-z0-9-][A-Za-z0-9_-]{0,63}$/.test(tenant)) {
  throw new Error(`TENANT ${JSON.stringify(tenant)}: 1 to 64 bytes of [A-Za-z0-9_-], not starting with '_'`);
}

const nc = await connect({
  servers: process.env.NATS_URL ?? "nats://127.0.0.1:4222",
  authenticator: process.env.NATS_CREDS ? credsAuthenticator(readFileSync(process.env.NATS_CREDS)) : undefined,
  inboxPrefix: `_INBOX.producer-${tenant}`, // a producer's replies come to its own inbox prefix
});

const text = new TextDecoder();
const b64 = (/** @type {string} */ s) => "_" + Buffer.from(s, "utf8").toString("base64url");

/** @type {Map<string, Buffer | null>} data keys by bucket key; null: erased */
const keys = new Map();

/**
 * The data key of a user of the tenant: 48 bytes (a 16-byte id, then the
 * AES-256 key), asked of the keys service on the tenant's own subject
 * (tsv.keys.user.<tenant>, all a producer may ask; it never reads the
 * bucket ts_keys itself). A reply with an error header is no key.
 * @param {string} user
 * @returns {Promise<Buffer | null>} null when there is no usable key
 */
async function userKey(user) {
  const name = `k.${b64(tenant)}.u.${b64(user)}`;
  if (!keys.has(name)) {
    const m = await nc.request(`tsv.keys.user.${tenant}`, JSON.stringify({ user }), { timeout: 5000 });
    const failed = m.headers?.get("Nats-Service-Error-Code");
    keys.set(name, failed || m.data.length !== 48 ? null : Buffer.from(m.data));
  }
  return keys.get(name) ?? null;
}

/**
 * Opens a sealed body: a 12-byte nonce, then AES-256-GCM ciphertext and
 * its 16-byte tag, with additional data id NUL kind NUL tenant.
 * @param {Envelope} env
 * @param {Uint8Array} sealed
 * @returns {Promise<{body?: any, why?: string}>}
 */
async function open(env, sealed) {
  const [scope, id] = (env.kx ?? "").split("#");
  let user = env.u ?? "";
  if (scope !== "") {
    if (!scope.startsWith("u/")) return { why: `sealed under ${scope}, a key this identity does not read` };
    user = untoken(scope.slice(2));
  }
  const key = await userKey(user);
  if (key === null || key.subarray(0, 9).toString("base64url") !== id) {
    return { why: "erased (its key was destroyed): envelope only" };
  }
  const nonce = sealed.subarray(0, 12);
  const tag = sealed.subarray(sealed.length - 16);
  const d = createDecipheriv("aes-256-gcm", key.subarray(16), nonce);
  d.setAAD(Buffer.from(`${env.id}\0${env.k}\0${env.t}`, "utf8"));
  d.setAuthTag(tag);
  const plain = Buffer.concat([d.update(sealed.subarray(12, sealed.length - 16)), d.final()]);
  return { body: decode(plain, { useBigInt64: true }) };
}

/** An id as a subject or scope token writes it: '~' and base64url when escaped. */
function untoken(/** @type {string} */ tok) {
  return tok.startsWith("~") ? Buffer.from(tok.slice(1), "base64url").toString("utf8") : tok;
}

const q = (/** @type {string} */ s) => JSON.stringify(s);
const json = (/** @type {Uint8Array | undefined} */ b) => (b ? text.decode(b) : "");

/** @param {Envelope} env */
const headOf = (env) => `${env.k} tenant=${env.t}${env.u ? ` user=${env.u}` : ""} call=${env.c ?? ""}`;

/**
 * One line for an event.
 * @param {Envelope} env
 * @param {any} body
 */
function line(env, body) {
  const head = headOf(env);
  switch (env.k) {
    case "call.completed": {
      const b = /** @type {CallCompleted} */ (body);
      return `${head} tool=${b.n} args=${json(b.a)}`;
    }
    case "call.rejected": {
      const b = /** @type {CallRejected} */ (body);
      return `${head} tool=${b.n} reason=${b.r} detail=${q(b.d ?? "")}`;
    }
    case "call.incomplete": {
      const b = /** @type {CallIncomplete} */ (body);
      return `${head} tool=${b.n} reason=${b.r} bytes=${b.pv?.nb ?? 0}`;
    }
    case "exec.succeeded": {
      const b = /** @type {CallSucceeded} */ (body);
      return `${head} tool=${b.n} result=${b.res ? json(b.res) : `(stored as ts_results/${b.ref})`} summary=${q(b.sum)}`;
    }
    case "exec.failed": {
      const b = /** @type {CallFailed} */ (body);
      return `${head} tool=${b.n} error=${b.e} message=${q(b.m)}`;
    }
  }
  return head;
}

/**
 * Decodes and prints one message: two msgpack values, the envelope and
 * the body (a bin when sealed).
 * @param {import("nats").Msg} m
 */
async function handle(m) {
  const [env, raw] = /** @type {[Envelope, any]} */ ([...decodeMulti(m.data, { useBigInt64: true })]);
  if (!env.kx) {
    console.log(line(env, raw));
    return;
  }
  const { body, why } = await open(env, raw);
  console.log(body === undefined ? `${headOf(env)} ${why}` : line(env, body));
}

// The tenant's decided calls and the results of its calls, live, handled
// one at a time in the order they arrive.
let seen = 0;
let chain = Promise.resolve();
/** @type {import("nats").SubscriptionOptions} */
const opts = {
  callback: (err, m) => {
    chain = chain
      .then(async () => {
        if (err) throw err;
        await handle(m);
      })
      .catch((e) => console.error(`error: ${m?.subject}: ${e instanceof Error ? e.message : e}`)) // bad input: say so, go on
      .then(async () => {
        if (count > 0 && ++seen === count) await nc.drain();
      });
  },
};
nc.subscribe(`ts.call.${tenant}.>`, opts);
nc.subscribe(`ts.result.${tenant}.>`, opts);
await nc.flush();
console.log(`# listening to ts.call.${tenant}.> and ts.result.${tenant}.>`);
await nc.closed();
await chain;
