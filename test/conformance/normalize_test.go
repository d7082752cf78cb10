package conformance

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// volatile lists map keys whose values are ages, offsets, pids or ids:
// they legitimately differ between two runs and are replaced by <n>.
var volatile = map[string]bool{
	"last-ping-sent": true, "last-ok-ping-reply": true, "last-ping-reply": true,
	"info-refresh": true, "role-reported-time": true, "master-link-down-time": true,
	"s-down-time": true, "o-down-time": true, "last-hello-message": true,
	"slave-repl-offset": true, "link-pending-commands": true,
	"pid": true, "run-time": true, "run-delay": true, "id": true,
}

var (
	hexID    = regexp.MustCompile(`\b[0-9a-f]{40}\b`)
	portLike = regexp.MustCompile(`\b\d{4,5}\b`)
)

// aclRule matches a user description ("user <name> ... -@all +ping ...").
var aclRule = regexp.MustCompile(`(?m)^user \S+ .*$`)

// sortACLCommands sorts the +cmd/-cmd tokens of each user description:
// Redis 7.0 describes per-command rules in the iteration order of its
// command dict, whose hash seed is random per process (observed: the same
// ACL SETUSER lists them in a different order on every start). Category
// (+@x/-@x) and other tokens keep their place.
func sortACLCommands(str string) string {
	return aclRule.ReplaceAllStringFunc(str, func(line string) string {
		words := strings.Fields(line)
		var idx []int
		var cmds []string
		for i, w := range words {
			if (strings.HasPrefix(w, "+") || strings.HasPrefix(w, "-")) && !strings.HasPrefix(w[1:], "@") {
				idx = append(idx, i)
				cmds = append(cmds, w)
			}
		}
		sort.Strings(cmds)
		for k, i := range idx {
			words[i] = cmds[k]
		}
		return strings.Join(words, " ")
	})
}

// norm replaces the side's ports and every 40-hex id in a string, and
// sorts the per-command rules of ACL user descriptions.
func (s *side) norm(str string) string {
	str = sortACLCommands(str)
	str = hexID.ReplaceAllStringFunc(str, func(id string) string {
		if id == s.myid {
			return "<myid>"
		}
		return "<runid>"
	})
	return portLike.ReplaceAllStringFunc(str, func(p string) string {
		if ph, ok := s.ports[p]; ok {
			return ph
		}
		return p
	})
}

// render prints v canonically (kind markers kept, so a bulk "1" and an
// integer 1 differ), with s's normalisation applied.
func (s *side) render(v resp.Value) string {
	var b strings.Builder
	s.renderTo(&b, v)
	return b.String()
}

func (s *side) renderTo(b *strings.Builder, v resp.Value) {
	switch v.Kind {
	case resp.KindSimpleString:
		b.WriteString("+" + s.norm(v.Str))
	case resp.KindError:
		b.WriteString("-" + s.norm(v.Str))
	case resp.KindInteger:
		b.WriteString(":" + strconv.FormatInt(v.Int, 10))
	case resp.KindBulkString:
		b.WriteString("$" + strconv.Quote(s.normBulk(v.Str)))
	case resp.KindVerbatim:
		b.WriteString("=" + v.Format + ":" + strconv.Quote(s.normBulk(v.Str)))
	case resp.KindNullBulk, resp.KindNullArray, resp.KindNull:
		b.WriteString("<" + v.Kind.String() + ">")
	case resp.KindDouble:
		b.WriteString("," + strconv.FormatFloat(v.Float, 'g', -1, 64))
	case resp.KindBoolean:
		b.WriteString("#" + strconv.FormatBool(v.Bool))
	case resp.KindBigNumber:
		b.WriteString("(" + v.Str)
	case resp.KindArray, resp.KindSet, resp.KindPush, resp.KindMap:
		if s.hideNewer {
			v = withoutLoglevel(v)
		}
		open := map[resp.Kind]string{resp.KindArray: "*[", resp.KindSet: "~[", resp.KindPush: ">[", resp.KindMap: "%{"}[v.Kind]
		b.WriteString(open)
		for i := 0; i < len(v.Elems); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			s.renderTo(b, v.Elems[i])
			k, isText := v.Elems[i].Text()
			if isText && v.Elems[i].Kind != resp.KindError && volatile[k] && i+1 < len(v.Elems) && i%2 == 0 {
				i++
				b.WriteString(", <n>")
			}
		}
		b.WriteString(map[bool]string{true: "}", false: "]"}[v.Kind == resp.KindMap])
	default:
		b.WriteString("<" + v.Kind.String() + ">")
	}
}

// normBulk normalises a bulk string; an INFO text of a monitored
// redis-server (INFO-CACHE) is reduced to its first line.
func (s *side) normBulk(str string) string {
	if s.hideNewer {
		str = totalTilt.ReplaceAllString(str, "")
	}
	str = saveStatus.ReplaceAllString(str, "")
	if strings.HasPrefix(str, "# Server\r\n") && strings.Contains(str, "redis_mode:standalone") {
		return "<redis-server INFO>"
	}
	return s.norm(str)
}
