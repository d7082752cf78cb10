package config

import (
	"fmt"
	"strconv"
	"strings"
)

// validate checks the value of a standard directive like config.c does.
func validate(name string, sp spec, vals []string) string {
	switch sp.kind {
	case kBool:
		if _, ok := yesNo(vals[0]); !ok {
			return msgYesNo
		}
	case kEnum:
		v := strings.ToLower(vals[0])
		for _, e := range sp.enum {
			if v == e {
				return ""
			}
		}
		return "argument(s) must be one of the following: " + strings.Join(sp.enum, ", ")
	case kInt:
		n, err := strconv.ParseInt(vals[0], 10, 64)
		if err != nil {
			return msgNotInt
		}
		if (sp.min != 0 || sp.max != 0) && (n < sp.min || n > sp.max) {
			return fmt.Sprintf("argument must be between %d and %d inclusive", sp.min, sp.max)
		}
	case kMem:
		v := vals[0]
		if name == "maxmemory-clients" && strings.HasSuffix(v, "%") {
			v = strings.TrimSuffix(v, "%")
		}
		if _, ok := memToBytes(v); !ok {
			return msgNotMemory
		}
	case kMulti:
		return validateMulti(name, vals)
	case kRaw:
		if _, err := strconv.ParseUint(vals[0], 8, 32); err != nil {
			return "argument couldn't be parsed as an octal number"
		}
	}
	if name == "notify-keyspace-events" {
		if _, ok := keyspaceEvents(vals[0]); !ok {
			return "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
		}
	}
	return ""
}

// keyspaceEvents canonicalises notify-keyspace-events flags like
// keyspaceEventsStringToFlags + keyspaceEventsFlagsToString ("KEA" → "AKE").
func keyspaceEvents(v string) (string, bool) {
	const classes = "g$lshzxetd" // the classes "A" stands for, in output order
	set := map[byte]bool{}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == 'A':
			for j := 0; j < len(classes); j++ {
				set[classes[j]] = true
			}
		case strings.IndexByte(classes+"nKEm", c) >= 0:
			set[c] = true
		default:
			return "", false
		}
	}
	var b strings.Builder
	all := true
	for j := 0; j < len(classes); j++ {
		all = all && set[classes[j]]
	}
	if all {
		b.WriteByte('A')
	} else {
		for _, c := range []byte(classes + "n") {
			if set[c] {
				b.WriteByte(c)
			}
		}
	}
	for _, c := range []byte("KEm") {
		if set[c] {
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

func validateMulti(name string, vals []string) string {
	switch name {
	case "replicaof", "slaveof":
		if len(vals) != 2 {
			return msgWrongArgs
		}
	case "bind":
		if len(vals) == 0 {
			return msgWrongArgs
		}
	case "latency-tracking-info-percentiles":
		if len(vals) == 1 && vals[0] == "" {
			return ""
		}
		for _, v := range vals {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return "latency-tracking-info-percentiles parameters should be a number"
			}
			if f < 0 || f > 100 {
				return "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"
			}
		}
	case "save":
		if len(vals) == 1 && vals[0] == "" {
			return ""
		}
		if len(vals)%2 != 0 {
			return "Invalid save parameters"
		}
		for _, v := range vals {
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				return "Invalid save parameters"
			}
		}
	case "oom-score-adj-values":
		if len(vals) != 3 {
			return "Invalid oom-score-adj-values, please use 3 values"
		}
	}
	return ""
}

// yesNo parses yes/no case-insensitively (yesnotoi).
func yesNo(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "yes":
		return true, true
	case "no":
		return false, true
	}
	return false, false
}

// memToBytes parses "100", "1k", "1kb", "2mb", "3G" like memtoull.
func memToBytes(s string) (uint64, bool) {
	l := strings.ToLower(s)
	mul := uint64(1)
	for _, u := range []struct {
		suf string
		mul uint64
	}{{"kb", 1024}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1000}, {"m", 1000000}, {"g", 1000000000}, {"b", 1}} {
		if strings.HasSuffix(l, u.suf) {
			l = strings.TrimSuffix(l, u.suf)
			mul = u.mul
			break
		}
	}
	n, err := strconv.ParseUint(l, 10, 64)
	if err != nil {
		return 0, false
	}
	return n * mul, true
}
