// Package toolsel turns the registry's tools into what a model is given:
// the tools a tenant may call, in a provider's request format (OpenAI Chat
// Completions, OpenAI Responses, Anthropic Messages, Gemini, MCP), and,
// when there are more than a request should carry, the k most relevant to
// the conversation by a lexical ranking.
//
// The ranking is BM25 over each tool's words: its name (split at dots,
// underscores, dashes and case changes; counted three times), its
// description, and the names and descriptions of its parameters (counted
// twice for names). The query is the conversation's text. Ties are broken
// by name, so the same registry and query always give the same tools in
// the same order; a tool no word of the query matches ranks after every
// tool one does, by name.
//
// Exported names are the registry's names, unchanged: the assembler looks
// a call's tool up by the name the model sends. OpenAI, Anthropic and
// Gemini take function names of ^[a-zA-Z0-9_-]{1,64}$ only (MCP also takes
// dots, up to 128), so a tool whose name a format cannot carry is left out
// of that format and named in Exported.Skipped: rename it in the tools file
// (orders_refund, not orders.refund) to offer it to those models.
//
// Everything here is a pure function of its inputs and safe for
// concurrent use.
package toolsel
