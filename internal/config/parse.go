package config

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// srcLine is a directive and where it was read: `sentinel ...` lines are
// queued for the three passes, user lines keep it for startup checks.
type srcLine struct {
	file string
	line int
	text string
	args []string // without the leading "sentinel"
	// floor marks a gosentinel.voter-floor line (args[0] is the
	// directive): applied with the per-master lines, after the monitors.
	floor bool
}

// maxIncludeDepth bounds nested include directives (a loop would recurse
// forever otherwise).
const maxIncludeDepth = 16

// Load reads and validates the sentinel.conf at path.
func Load(path string) (*Config, error) {
	return LoadArgs(path, nil)
}

// LoadArgs reads the sentinel.conf at path plus command-line overrides
// (see ApplyArgs) and validates them together, as redis-sentinel does: a
// per-master option in the file may refer to a master monitored from args.
func LoadArgs(path string, args []string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: read %s: %w", path, err)
	}
	return parseBytes(data, path, args)
}

// Parse reads and validates a sentinel.conf from r; name is used in errors.
func Parse(r io.Reader, name string) (*Config, error) {
	return ParseArgs(r, name, nil)
}

// ParseArgs is Parse plus command-line overrides validated together.
func ParseArgs(r io.Reader, name string, args []string) (*Config, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("config: read %s: %w", name, err)
	}
	return parseBytes(data, name, args)
}

func parseBytes(data []byte, name string, args []string) (*Config, error) {
	c := New()
	c.File = name
	if wd, err := os.Getwd(); err == nil {
		c.Server.AbsDir = wd
	}
	text := string(data)
	if err := c.parseText(text, name, 1, 0); err != nil {
		return nil, err
	}
	c.lines = len(strings.Split(text, "\n"))
	if err := c.parseArgs(args); err != nil {
		return nil, err
	}
	if err := c.applySentinel(); err != nil {
		return nil, err
	}
	if err := c.checkUsers(); err != nil {
		return nil, err
	}
	return c, nil
}

// checkUsers does the ACL checks a sentinel does at startup, after the
// config file: rules must name sentinel commands or known categories.
func (c *Config) checkUsers() error {
	if c.Server.ACLFile != "" {
		return nil
	}
	for _, u := range c.Server.Users {
		if strings.IndexFunc(u.Name, func(r rune) bool { return r < 0x80 && isSpace(byte(r)) }) >= 0 {
			return &ConfigError{File: u.at.file, Line: u.at.line, Text: u.at.text, Msg: "Spaces not allowed in ACL usernames"}
		}
		if msg := checkUserCommands(u); msg != "" {
			return &ConfigError{File: u.at.file, Line: u.at.line, Text: u.at.text, Msg: msg}
		}
	}
	return nil
}

// ApplyArgs applies command-line overrides the way redis-server does:
// each "--name" starts a new directive line, the following arguments are
// its values (quoted), and the lines are appended after the file content
// (so their line numbers follow the file's). The sentinel directives of the
// file and of args are then validated again in Sentinel's three passes.
//
// ApplyArgs on a Config that was already validated fails if the file alone
// was invalid; use LoadArgs or ParseArgs to validate file and args together.
//
// On error c is left as it was before the call.
func (c *Config) ApplyArgs(args []string) error {
	saved := c.Clone()
	err := c.parseArgs(args)
	if err == nil {
		err = c.applySentinel()
	}
	if err == nil {
		err = c.checkUsers()
	}
	if err != nil {
		*c = *saved
	}
	return err
}

// parseArgs appends the command-line directives without the sentinel passes.
func (c *Config) parseArgs(args []string) error {
	opts := BuildOptions(args)
	if opts == "" {
		return nil
	}
	if err := c.parseText(opts, c.File, c.lines+1, 0); err != nil {
		return err
	}
	c.lines += len(strings.Split(opts, "\n"))
	return nil
}

// BuildOptions turns command-line arguments into config lines exactly like
// redis-server's main(): "--port 5000 --sentinel monitor m h 1 2" becomes
// "port \"5000\" \nsentinel \"monitor\" \"m\" \"h\" \"1\" \"2\" ".
func BuildOptions(args []string) string {
	var b strings.Builder
	handledLast := true
	for j, a := range args {
		if handledLast && strings.HasPrefix(a, "--") {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(a[2:])
			b.WriteString(" ")
			parts, _ := SplitArgs(a)
			if len(parts) == 1 {
				handledLast = false
				nextIsOpt := j != len(args)-1 && strings.HasPrefix(args[j+1], "--")
				last := j == len(args)-1
				switch {
				case nextIsOpt && strings.EqualFold(a, "--save"):
					b.WriteString(`""`)
					handledLast = true
				case last && strings.EqualFold(a, "--save"):
					b.WriteString(`""`)
				case nextIsOpt && strings.EqualFold(a, "--sentinel"):
					handledLast = true
				}
			} else {
				handledLast = true
			}
			continue
		}
		b.WriteString(Quote(a))
		b.WriteString(" ")
		handledLast = true
	}
	return b.String()
}

// parseText applies the lines of text; first is the line number of its
// first line.
func (c *Config) parseText(text, file string, first, depth int) error {
	for i, raw := range strings.Split(text, "\n") {
		line := strings.Trim(raw, " \t\r\n")
		if line == "" || line[0] == '#' {
			continue
		}
		lineno := first + i
		fail := func(msg string) error {
			return &ConfigError{File: file, Line: lineno, Text: line, Msg: msg}
		}
		args, err := SplitArgs(line)
		if err != nil {
			return &ConfigError{File: file, Line: lineno, Text: line, Msg: msgUnbalancedQuotes, err: ErrUnbalancedQuotes}
		}
		if len(args) == 0 {
			continue
		}
		shareArgs(line, args)
		args[0] = strings.ToLower(args[0])
		if args[0] == "include" && len(args) == 2 {
			if err := c.include(args[1], depth); err != nil {
				return err
			}
			continue
		}
		if args[0] == VoterFloorDirective {
			c.src = append(c.src, srcLine{file: file, line: lineno, text: line, args: args, floor: true})
			continue
		}
		if args[0] == "sentinel" {
			if len(args) > 1 {
				c.src = append(c.src, srcLine{file: file, line: lineno, text: line, args: args[1:]})
			}
			continue
		}
		c.cur = srcLine{file: file, line: lineno, text: line}
		if msg := c.applyServer(args); msg != "" {
			return fail(msg)
		}
	}
	return nil
}

// shareArgs makes each argument that appears verbatim in line (no quotes
// or escapes) a substring of line instead of a copy. The sentinel lines'
// text is kept for error messages (srcLine) and the master names, which
// the core keeps for good, then share its memory: a config with long names
// is held once, not twice.
func shareArgs(line string, args []string) {
	from := 0
	for k, a := range args {
		if i := strings.Index(line[from:], a); i >= 0 {
			args[k] = line[from+i : from+i+len(a)]
			from += i + len(a)
		}
	}
}

// include loads another file in place (config.c "include").
func (c *Config) include(path string, depth int) error {
	if depth >= maxIncludeDepth {
		return fmt.Errorf("config: include %s: nested too deeply: %w", path, ErrConfig)
	}
	if !filepath.IsAbs(path) && c.Server.AbsDir != "" {
		path = filepath.Join(c.Server.AbsDir, path) // relative to the cwd after dir
	}
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("config: include %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("config: include %s: not a regular file: %w", path, ErrConfig)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config: include %s: %w", path, err)
	}
	return c.parseText(string(data), path, 1, depth+1)
}

// resolveDir returns dir made absolute against the current AbsDir, the
// directory a real sentinel would be in after its previous chdir.
func (c *Config) resolveDir(dir string) string {
	if filepath.IsAbs(dir) || c.Server.AbsDir == "" {
		return filepath.Clean(dir)
	}
	return filepath.Join(c.Server.AbsDir, dir)
}
