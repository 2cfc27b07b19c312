package record

import (
	"strconv"
)

// DecodeAny is Unmarshal into an any (objects as map[string]any, arrays as
// []any, numbers as float64), with each string found by one jump to its
// closing quote and then checked as it is unquoted (Unquote): the decoder
// checks a 455 KB prompt's UTF-8 with utf8.Valid, which on emoji or CJK
// cost llm-sim, parsing every request, three times what Unquote's check
// does.
func DecodeAny(b []byte) (any, error) {
	v, i, err := decodeAny(b, skipSpace(b, 0), 1)
	if err != nil {
		return nil, err
	}
	if i = skipSpace(b, i); i != len(b) {
		return nil, &syntaxError{i, "data after the value"}
	}
	return v, nil
}

func decodeAny(b []byte, i, depth int) (any, int, error) {
	if depth > maxDepth {
		return nil, i, &syntaxError{i, "nesting too deep"}
	}
	if i >= len(b) {
		return nil, i, &syntaxError{i, "unexpected end of input"}
	}
	switch c := b[i]; {
	case c == '"':
		s, j, err := decodeString(b, i)
		if err != nil {
			return nil, j, err
		}
		return s, j, nil
	case c == '{':
		m := map[string]any{}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return m, i + 1, nil
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return nil, i, &syntaxError{i, "expected object key"}
			}
			k, j, err := decodeString(b, i)
			if err != nil {
				return nil, j, err
			}
			if i = skipSpace(b, j); i >= len(b) || b[i] != ':' {
				return nil, i, &syntaxError{i, "expected ':' after object key"}
			}
			v, j, err := decodeAny(b, skipSpace(b, i+1), depth+1)
			if err != nil {
				return nil, j, err
			}
			m[k] = v
			if i = skipSpace(b, j); i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == '}' {
				return m, i + 1, nil
			}
			return nil, i, &syntaxError{i, "expected ',' or '}' in object"}
		}
	case c == '[':
		a := []any{}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return a, i + 1, nil
		}
		for {
			v, j, err := decodeAny(b, i, depth+1)
			if err != nil {
				return nil, j, err
			}
			a = append(a, v)
			if i = skipSpace(b, j); i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == ']' {
				return a, i + 1, nil
			}
			return nil, i, &syntaxError{i, "expected ',' or ']' in array"}
		}
	case c == 't':
		j, err := skipLiteral(b, i, "true")
		return true, j, err
	case c == 'f':
		j, err := skipLiteral(b, i, "false")
		return false, j, err
	case c == 'n':
		j, err := skipLiteral(b, i, "null")
		return nil, j, err
	case c == '-' || (c >= '0' && c <= '9'):
		j, err := skipNumber(b, i)
		if err != nil {
			return nil, j, err
		}
		f, err := strconv.ParseFloat(string(b[i:j]), 64)
		if err != nil {
			return nil, i, &syntaxError{i, "number out of range"}
		}
		return f, j, nil
	default:
		return nil, i, &syntaxError{i, "unexpected character " + strconv.QuoteRune(rune(c))}
	}
}

// decodeString is the string at b[i]: its end is the first quote after an
// even number of backslashes (stringEnd), and Unquote checks everything
// between.
func decodeString(b []byte, i int) (string, int, error) {
	end := stringEnd(b, i)
	if end < 0 {
		return "", i, &syntaxError{i, "unterminated string"}
	}
	s, err := Unquote(b[i:end])
	if err != nil {
		return "", i, err
	}
	return s, end, nil
}
