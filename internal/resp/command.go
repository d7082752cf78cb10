package resp

// ReadCommand reads the next command, multibulk ("*2\r\n$4\r\nPING\r\n...")
// or inline ("PING hello\r\n"), and returns its arguments. Empty commands
// (blank inline lines, "*0", "*-1") are skipped as Redis does. The returned
// slices share one buffer that is reused: they are valid only until the next
// call. Malformed or over-limit input returns a *ProtocolError (the caller
// should reply "-ERR " + err.Error() and close the connection); other errors
// come from the underlying reader (io.EOF at a clean end of stream).
func (r *Reader) ReadCommand() ([][]byte, error) {
	for {
		if r.r == r.w {
			if err := r.fill(); err != nil {
				return nil, err
			}
		}
		var n int
		var err error
		if r.buf[r.r] == '*' {
			n, err = r.readMultibulk()
		} else {
			n, err = r.readInline()
		}
		if err != nil {
			return nil, err
		}
		if n > 0 {
			return r.args[:n], nil
		}
	}
}

// maxArgs and maxBulk return the limits for the current auth state.
func (r *Reader) maxArgs() (int64, error) {
	if r.unauth {
		return r.lim.UnauthMaxArgs, errUnauthMultibulkLen
	}
	return r.lim.MaxArgs, errInvalidMultibulkLen
}

func (r *Reader) maxBulk() (int64, error) {
	if r.unauth {
		return r.lim.UnauthMaxBulkLen, errUnauthBulkLen
	}
	return r.lim.MaxBulkLen, errInvalidBulkLen
}

// readMultibulk reads "*<n>" and n bulks into r.args; it returns n.
func (r *Reader) readMultibulk() (int, error) {
	line, err := r.readLine(r.lim.MaxInlineLen, errTooBigMbulkCount)
	if err != nil {
		return 0, err
	}
	count, ok := parseInt(line[1:])
	if !ok || count > 1<<31-1 {
		return 0, errInvalidMultibulkLen
	}
	if count <= 0 {
		return 0, nil
	}
	if limit, lerr := r.maxArgs(); count > limit {
		return 0, lerr
	}
	r.argbuf = r.argbuf[:0]
	r.argOffs = r.argOffs[:0]
	bulkLimit, bulkErr := r.maxBulk()
	for i := int64(0); i < count; i++ {
		line, err := r.readLine(r.lim.MaxInlineLen, errTooBigBulkCount)
		if err != nil {
			return 0, unexpectedEOF(err)
		}
		if len(line) == 0 || line[0] != '$' {
			got := byte('\n')
			if len(line) > 0 {
				got = line[0]
			}
			return 0, errExpectedDollar(got)
		}
		size, ok := parseInt(line[1:])
		if !ok || size < 0 || size > r.lim.MaxBulkLen {
			return 0, errInvalidBulkLen
		}
		if size > bulkLimit {
			return 0, bulkErr
		}
		r.argOffs = append(r.argOffs, len(r.argbuf))
		r.argbuf, err = r.readPayload(r.argbuf, size)
		if err != nil {
			return 0, err
		}
		// Redis skips the two bytes after the payload without checking them.
		if err := r.skip(2); err != nil {
			return 0, err
		}
	}
	r.argOffs = append(r.argOffs, len(r.argbuf))
	return r.sliceArgs(int(count)), nil
}

// sliceArgs points r.args into r.argbuf using r.argOffs.
func (r *Reader) sliceArgs(n int) int {
	if cap(r.args) < n {
		r.args = make([][]byte, n)
	}
	r.args = r.args[:n]
	for i := 0; i < n; i++ {
		a, b := r.argOffs[i], r.argOffs[i+1]
		r.args[i] = r.argbuf[a:b:b]
	}
	return n
}

// readInline reads one inline command line and splits it like sdssplitargs.
func (r *Reader) readInline() (int, error) {
	line, err := r.readLine(r.lim.MaxInlineLen, errTooBigInline)
	if err != nil {
		return 0, err
	}
	r.argbuf = r.argbuf[:0]
	r.argOffs = r.argOffs[:0]
	r.argbuf, r.argOffs, err = splitArgs(line, r.argbuf, r.argOffs)
	if err != nil {
		return 0, err
	}
	n := len(r.argOffs)
	if n == 0 {
		return 0, nil
	}
	r.argOffs = append(r.argOffs, len(r.argbuf))
	return r.sliceArgs(n), nil
}
