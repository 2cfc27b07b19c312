// Package redact is the one place secrets are taken out of text. The API keys
// a run is given (OPENAI_API_KEY, JUDGE_API_KEY, --api-key-file contents) and
// the credentials in a base URL (http://user:pass@host) are registered once,
// at start-up; every record line a tool writes, every log line, --stats and
// everything on stderr pass through String or Writer, wherever in the text a
// secret occurs (a server or proxy that echoes the Authorization header back
// in an error page, a 200 body, an SSE event). Redact before shortening: a
// key cut in half by truncation would no longer match.
package redact
