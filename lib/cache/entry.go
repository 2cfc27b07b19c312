package cache

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/klauspost/compress/zstd"
)

// format names the layout and the key's hashing; it goes into every key's
// Sum and every entry, so a later layout never reads this one's entries.
const format = "ifkit-cache/1"

// Entry is one cached reply: a header (the key, when and by which run it
// was paid for) and the payload, the reply as the caller stores it.
type Entry struct {
	Header
	Payload json.RawMessage
}

// Header is the first line of an entry.
type Header struct {
	Format string    `json:"format"`
	Sum    string    `json:"sum"`
	Key    Key       `json:"key"`
	Time   time.Time `json:"time"`
	Run    string    `json:"run"`
	Tool   string    `json:"tool,omitempty"`
}

// An entry file is one zstd frame, with its content checksum, of two lines:
// the header and the payload. A torn or altered file fails the checksum or
// the frame; a file holding another key's entry (copied, renamed) fails the
// name check: either way it is read as a miss, never as a reply.
var (
	encoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderCRC(true))
	decoder, _ = zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxEntry), zstd.IgnoreChecksum(false))
)

// maxEntry bounds what one entry may decode to: a reply is at most 128 MiB
// (--max-reply), and a corrupt frame must not claim more.
const maxEntry = 256 << 20

func encodeEntry(h *Header, payload []byte) ([]byte, error) {
	head, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	plain := make([]byte, 0, len(head)+len(payload)+2)
	plain = append(append(append(append(plain, head...), '\n'), payload...), '\n')
	return encoder.EncodeAll(plain, nil), nil
}

// errCorrupt wraps every reason an entry file is not a valid entry.
var errCorrupt = errors.New("corrupt cache entry")

// decodeEntry reads an entry file and checks it against the name it was
// found under.
func decodeEntry(b []byte, sum string) (*Entry, error) {
	plain, err := decoder.DecodeAll(b, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errCorrupt, err)
	}
	head, payload, ok := bytes.Cut(plain, []byte{'\n'})
	if !ok || len(payload) == 0 || payload[len(payload)-1] != '\n' {
		return nil, fmt.Errorf("%w: not a header and a payload", errCorrupt)
	}
	payload = payload[:len(payload)-1]
	e := &Entry{Payload: payload}
	if err := json.Unmarshal(head, &e.Header); err != nil {
		return nil, fmt.Errorf("%w: header: %v", errCorrupt, err)
	}
	switch {
	case e.Format != format:
		return nil, fmt.Errorf("%w: format %q, not %q", errCorrupt, e.Format, format)
	case e.Sum != sum || e.Key.Sum() != sum:
		return nil, fmt.Errorf("%w: it holds another key's entry", errCorrupt)
	case !json.Valid(payload):
		return nil, fmt.Errorf("%w: the payload is not JSON", errCorrupt)
	}
	return e, nil
}
