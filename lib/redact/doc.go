// Package redact is the one place secrets are taken out of text. The API keys
// a run is given (OPENAI_API_KEY, JUDGE_API_KEY, --api-key-file contents) and
// the credentials in a base URL (http://user:pass@host, and the Basic
// authorization Go sends for them) are registered once, at start-up; every
// record line a tool writes, every log line, --stats, manifests, partition
// folder names and everything on stderr pass through String, Bytes or
// Writer, wherever in the text a secret occurs (a server or proxy that
// echoes the Authorization header back in an error page, a 200 body, an SSE
// event), as written or escaped in a JSON or Go string (\/, \", \\,
// \u00XX). Redact before shortening: a key cut in half by truncation would
// no longer match.
//
// Flags that hold a secret, or name the file that does, are marked where
// they are declared (Flag): a command line a program writes (Args) masks
// their values and the credentials of every URL in it, and a run's settings
// leave them out. Nothing else is masked.
package redact
