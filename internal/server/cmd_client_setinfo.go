package server

import "strings"

// clientSetinfo is CLIENT SETINFO LIB-NAME|LIB-VER <value> (Redis 7.2,
// networking.c clientSetinfoCommand): the value shows up in CLIENT LIST /
// CLIENT INFO as lib-name= / lib-ver=; an empty value clears it.
func clientSetinfo(c *client, args [][]byte) {
	attr, val := string(args[2]), string(args[3])
	var dst *string
	switch strings.ToLower(attr) {
	case "lib-name":
		dst = &c.libName
	case "lib-ver":
		dst = &c.libVer
	default:
		c.addError("ERR Unrecognized option '" + attr + "'")
		return
	}
	if !validClientName(val) {
		c.addError("ERR " + attr + " cannot contain spaces, newlines or special characters.")
		return
	}
	c.mu.Lock()
	*dst = val
	c.mu.Unlock()
	c.addReply([]byte("+OK\r\n"))
}
