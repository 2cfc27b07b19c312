package reasoning

import "strings"

// The formats of a trace, as response.reasoning_format names them.
const (
	// ThinkTags: <think>…</think> (or <thinking>, <reasoning>) before the
	// answer, the opening tag possibly left in the prompt by the chat
	// template (DeepSeek-R1, QwQ) and so missing from the reply.
	ThinkTags = "think_tags"
	// Harmony: gpt-oss's channels, the analysis before the final answer.
	Harmony = "harmony"
	// Server: the server split the trace off itself (reasoning_content or
	// reasoning beside the content, whole or in streamed deltas).
	Server = "server"
)

// Split is a reply's text cut by Parse.
type Split struct {
	Format string // ThinkTags or Harmony; "" when the text holds no trace
	Trace  string // the trace, without its markers
	Answer string // what follows the trace
	// Open: the trace never ended (no closing tag, no final channel), so
	// there is no answer.
	Open bool
}

// thinkTags are the tag names of ThinkTags: DeepSeek-R1, Qwen3, QwQ and
// most open models use think; some fine-tunes and prompts ask for the others.
var thinkTags = []string{"think", "thinking", "reasoning"}

// Parse finds a reasoning trace at the start of text. opened says the chat
// template opened the trace in the prompt (Mode Opened): a text that
// holds no marker at all is then a trace that never ended.
//
// A trace is recognised only where a model puts one: at the start of the
// reply (after white space), or, for a closing tag without its opening one,
// anywhere before the first such tag. A tag in the middle of an answer that
// began otherwise is the answer's text.
func Parse(text string, opened bool) Split {
	t := strings.TrimLeft(text, " \t\r\n")
	for _, tag := range thinkTags {
		open, end := "<"+tag+">", "</"+tag+">"
		body, ok := strings.CutPrefix(t, open)
		if !ok {
			continue
		}
		trace, answer, closed := strings.Cut(body, end)
		if !closed {
			return Split{Format: ThinkTags, Trace: strings.TrimSpace(body), Open: true}
		}
		return Split{Format: ThinkTags, Trace: strings.TrimSpace(trace), Answer: afterTag(answer)}
	}
	if s, ok := harmony(t); ok {
		return s
	}
	// A closing tag whose opening one was in the prompt: the first one, when
	// no opening tag of its name comes before it.
	first, firstEnd := -1, ""
	for _, tag := range thinkTags {
		end := "</" + tag + ">"
		if i := strings.Index(text, end); i >= 0 && (first < 0 || i < first) && !strings.Contains(text[:i], "<"+tag+">") {
			first, firstEnd = i, end
		}
	}
	if first >= 0 {
		return Split{Format: ThinkTags, Trace: strings.TrimSpace(text[:first]), Answer: afterTag(text[first+len(firstEnd):])}
	}
	if opened && text != "" {
		return Split{Format: ThinkTags, Trace: strings.TrimSpace(text), Open: true}
	}
	return Split{Answer: text}
}

// afterTag is the answer after a closing tag, without the separator chat
// templates put there ("</think>\n\n"): spaces, then at most one blank
// line. Any further white space is the answer's own: a continuation that
// starts on a new line (LongGenBench's entries) keeps it.
func afterTag(s string) string {
	s = strings.TrimLeft(s, " \t")
	for range 2 {
		if rest, ok := strings.CutPrefix(s, "\r\n"); ok {
			s = rest
		} else {
			s = strings.TrimPrefix(s, "\n")
		}
	}
	return s
}

// Harmony's special tokens (gpt-oss), as a server that does not parse the
// channels leaves them in the text.
const (
	hStart   = "<|start|>"
	hChannel = "<|channel|>"
	hMessage = "<|message|>"
	hEnd     = "<|end|>"
	hReturn  = "<|return|>"
	hCall    = "<|call|>"
	// Without its special tokens (a server that skips them when it decodes),
	// a harmony reply reads "analysis…assistantfinal…".
	bareAnalysis = "analysis"
	bareFinal    = "assistantfinal"
)

// harmony reads t (trimmed on the left) as harmony messages: every channel
// but final is trace; the final channel's message is the answer. A reply
// that ends before a final message has an open trace.
func harmony(t string) (Split, bool) {
	if !strings.HasPrefix(t, hChannel) && !strings.HasPrefix(t, hStart) {
		if rest, ok := strings.CutPrefix(t, bareAnalysis); ok {
			if trace, answer, ok := strings.Cut(rest, bareFinal); ok {
				return Split{Format: Harmony, Trace: strings.TrimSpace(trace), Answer: answer}, true
			}
		}
		return Split{}, false
	}
	var traces []string
	s := Split{Format: Harmony}
	for {
		if rest, ok := strings.CutPrefix(t, hStart); ok {
			// The role (assistant) up to the channel.
			i := strings.Index(rest, hChannel)
			if i < 0 {
				s.Open = true // cut inside a message header
				break
			}
			t = rest[i:]
		}
		rest, ok := strings.CutPrefix(t, hChannel)
		if !ok {
			// Text after a message that is not another message: the answer.
			s.Answer = t
			break
		}
		header, body, ok := strings.Cut(rest, hMessage)
		if !ok {
			s.Open = true
			break
		}
		channel := header
		if i := strings.IndexAny(header, " <"); i >= 0 {
			channel = header[:i]
		}
		content, next, ended := cutMessage(body)
		if channel == "final" {
			s.Answer = content
			break
		}
		traces = append(traces, strings.TrimSpace(content))
		t = strings.TrimLeft(next, " \t\r\n")
		if !ended || t == "" {
			s.Open = true // the trace ran to the end: no final answer
			break
		}
	}
	s.Trace = strings.Join(traces, "\n\n")
	return s, true
}

// cutMessage splits a harmony message body at its end token: the content,
// what follows the token (a next <|start|> is left in place), and whether
// an end was found.
func cutMessage(body string) (content, next string, ended bool) {
	end, token := -1, ""
	for _, tok := range []string{hEnd, hReturn, hCall, hStart} {
		if i := strings.Index(body, tok); i >= 0 && (end < 0 || i < end) {
			end, token = i, tok
		}
	}
	if end < 0 {
		return body, "", false
	}
	if token == hStart {
		return body[:end], body[end:], true
	}
	return body[:end], body[end+len(token):], true
}
