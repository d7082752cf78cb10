package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ErrACLFile is wrapped by the errors of loading an aclfile, so callers can
// tell them apart with errors.Is. The message after it is what Redis
// accumulates in ACLLoadFromFile ("<file>:<line>: Error in applying
// operation '<rule>': <reason>. ... WARNING: ACL errors detected, ...").
var ErrACLFile = errors.New("server: aclfile")

// errACLSave is ACL SAVE's reply when the file cannot be written.
const errACLSave = "ERR There was an error trying to save the ACLs. Please check the server logs for more information"

// ACLFileError is the error of loading an aclfile. Text is Redis'
// accumulated error text, what ACL LOAD replies after "-ERR " and what the
// startup log prints after "Aborting Redis startup because of ACL
// errors: ". It wraps ErrACLFile.
type ACLFileError struct{ Text string }

// Error returns Text.
func (e *ACLFileError) Error() string { return e.Text }

// Unwrap returns ErrACLFile.
func (e *ACLFileError) Unwrap() error { return ErrACLFile }

// parseACLFile reads an aclfile like Redis' ACLLoadFromFile: one
// "user <name> <rule>..." line each, words split on single spaces (no
// quoting), blank lines skipped. Every bad line adds to one error text;
// nothing is applied unless the whole file is valid. The default user is
// the stock one ("on nopass ~* &* +@all") unless the file declares it.
func (a *acl) parseACLFile(path string) (map[string]*user, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &ACLFileError{Text: fmt.Sprintf("Error loading ACLs, opening file '%s': %s", path, errnoText(err))}
	}
	users := map[string]*user{}
	var errs strings.Builder
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		line = strings.Trim(line, " \t\r\n")
		if line == "" {
			continue
		}
		// sdssplitlen on " ": repeated spaces give empty words, which
		// then fail as rules (Redis reports "Syntax error").
		argv := strings.Split(line, " ")
		if len(argv) < 2 || argv[0] != "user" {
			fmt.Fprintf(&errs, "%s:%d should start with user keyword followed by the username. ", path, n)
			continue
		}
		name := argv[1]
		if strings.ContainsAny(name, " \t\r\n") {
			fmt.Fprintf(&errs, "'%s:%d: username '%s' contains invalid characters. ", path, n, name)
			continue
		}
		if _, dup := users[name]; dup {
			fmt.Fprintf(&errs, "WARNING: Duplicate user '%s' found on line %d. ", name, n)
			continue
		}
		u := a.newUser(name)
		syntaxErr := false
		rules, err := mergeSelectorArgs(argv[2:])
		if err != nil {
			// redis-sentinel 7.0.15 crashes here (SIGSEGV in
			// ACLLoadFromFile); 7.2 reports this line.
			fmt.Fprintf(&errs, "%s:%d: Unmatched parenthesis in selector definition. ", path, n)
			continue
		}
		for _, r := range rules {
			r = strings.Trim(r, "\t\r\n")
			err := a.applyOne(u, r)
			switch {
			case err == nil:
			case errors.Is(err, errACLUnknownCmd):
				// Redis names the rule for unknown commands (ENOENT) ...
				fmt.Fprintf(&errs, "%s:%d: Error in applying operation '%s': %s. ", path, n, r, err)
			case !syntaxErr:
				// ... and reports only the first other error of a line.
				fmt.Fprintf(&errs, "%s:%d: %s. ", path, n, err)
				syntaxErr = true
			}
		}
		users[name] = u
	}
	if errs.Len() > 0 {
		errs.WriteString("WARNING: ACL errors detected, no change to the previously active ACL rules was performed")
		return nil, &ACLFileError{Text: errs.String()}
	}
	if users["default"] == nil {
		def := a.newUser("default")
		_ = a.apply(def, []string{"on", "nopass", "~*", "&*", "+@all"})
		users["default"] = def
	}
	return users, nil
}

// errnoText returns the strerror-like part of a file error.
func errnoText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	s := err.Error()
	if s != "" {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

// loadACLFile replaces the whole user database with the file's users
// (ACL LOAD, and startup when aclfile is set). It returns the users that
// existed before except "default": Redis frees them, which disconnects
// their clients.
func (a *acl) loadACLFile(path string) ([]string, error) {
	users, err := a.parseACLFile(path)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	var gone []string
	for n := range a.users {
		if n != "default" {
			gone = append(gone, n)
		}
	}
	a.users = users
	a.mu.Unlock()
	sort.Strings(gone)
	return gone, nil
}

// saveACLFile writes every user in ACL LIST form, sorted by name, to a
// temp file in the same directory and renames it over path, like
// ACLSaveToFile.
func (a *acl) saveACLFile(path string) error {
	a.mu.RLock()
	names := sortedUsers(a)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(a.users[n].describe())
		b.WriteString("\n")
	}
	a.mu.RUnlock()
	f, err := os.CreateTemp(filepath.Dir(path), ".acl-*.tmp")
	if err != nil {
		return fmt.Errorf("server: acl save: %w", err)
	}
	tmp := f.Name()
	_, err = f.WriteString(b.String())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("server: acl save %s: %w", path, err)
	}
	return nil
}

// aclFileCommand serves ACL LOAD and ACL SAVE (sub is "acl|load" or
// "acl|save").
func aclFileCommand(c *client, sub string) {
	path := c.s.cfg.ACLFile
	if path == "" {
		c.addError(errNoACLFile)
		return
	}
	if sub == "acl|save" {
		if err := c.s.acl.saveACLFile(path); err != nil {
			c.s.cfg.Logf("Saving ACL file: %v", err)
			c.addError(errACLSave)
			return
		}
		c.addReply([]byte("+OK\r\n"))
		return
	}
	gone, err := c.s.acl.loadACLFile(path)
	if err != nil {
		c.addError("ERR " + err.Error())
		return
	}
	c.s.disconnectUsers(c, gone)
	c.addReply([]byte("+OK\r\n"))
}
