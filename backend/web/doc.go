// Package web holds the tools that reach the internet: WebFetch (NewFetch:
// one page as Markdown, a summary of a long one, PDFs, charsets) and
// WebSearch (NewSearch: the model's native search, then the search
// services in turn), and Net, the policy and dialer they both go through:
// it refuses loopback, private, link-local and metadata addresses, checks
// the address actually connected to (so DNS rebinding and redirects are
// caught), and asks for approval when Settings allow local addresses.
// Where a tool needs a model (summaries, native search) it declares an
// interface the engine satisfies.
package web
