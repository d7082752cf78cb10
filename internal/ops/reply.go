package ops

import (
	"fmt"
	"strconv"
)

// replyString renders one scalar element of a reply as a string.
func replyString(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case []byte:
		return string(t)
	case int64:
		return strconv.FormatInt(t, 10)
	case bool:
		if t {
			return "1"
		}
		return "0"
	default:
		return fmt.Sprint(t)
	}
}

// replyMap turns an instance map (a flat RESP2 array of name/value pairs or a
// RESP3 map) into a Go map.
func replyMap(v any) (map[string]string, error) {
	switch t := v.(type) {
	case []any:
		if len(t)%2 != 0 {
			return nil, fmt.Errorf("instance map has an odd number of elements (%d)", len(t))
		}
		m := make(map[string]string, len(t)/2)
		for i := 0; i < len(t); i += 2 {
			m[replyString(t[i])] = replyString(t[i+1])
		}
		return m, nil
	case map[any]any:
		m := make(map[string]string, len(t))
		for k, val := range t {
			m[replyString(k)] = replyString(val)
		}
		return m, nil
	case map[string]any:
		m := make(map[string]string, len(t))
		for k, val := range t {
			m[k] = replyString(val)
		}
		return m, nil
	default:
		return nil, fmt.Errorf("unexpected instance map type %T", v)
	}
}

// replyMaps turns an array of instance maps into Go maps.
func replyMaps(v any) ([]map[string]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("unexpected reply type %T, want array", v)
	}
	out := make([]map[string]string, 0, len(list))
	for i, e := range list {
		m, err := replyMap(e)
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// atoi parses an integer field, returning def when absent or malformed.
func atoi(m map[string]string, key string, def int64) int64 {
	s, ok := m[key]
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return def
	}
	return n
}
