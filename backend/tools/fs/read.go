package fs

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"tinyelf/backend/tools"
	"unicode/utf8"
)

//go:embed read.md
var readDescription string

// Read limits from the seed: files over readAutoTruncate are cut
// automatically; files over readWholeLimit must be read with offset/limit.
const (
	readAutoTruncate = 128 * 1024
	readWholeLimit   = 10 * 1024 * 1024
	readMaxLineBytes = 2000
	binarySniffBytes = 8192
)

var readParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to read, relative to the workspace root."},
    "offset": {"type": "integer", "minimum": 1, "description": "First line to read (1-based)."},
    "limit": {"type": "integer", "minimum": 1, "description": "Number of lines to read."}
  },
  "required": ["path"],
  "additionalProperties": false
}`)

type readTool struct{ ws *Workspace }

// NewRead returns the Read tool: line-numbered file contents, with partial
// reads by offset and limit.
func NewRead(ws *Workspace) tools.Tool { return &readTool{ws: ws} }

func (t *readTool) Info() tools.Info {
	return tools.Info{
		Name: "Read", Description: readDescription, Parameters: readParams,
		ReadOnly: true, Safe: true, Source: tools.SourceLocal,
		// The tool bounds itself at 128 KB of file text plus line numbers.
		MaxOutputBytes: readAutoTruncate + 64*1024,
	}
}

func (t *readTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	raw := tools.String(params, "path", "")
	name, err := t.ws.Resolve(raw)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	shown := t.ws.Display(name)
	st, err := t.ws.Stat(name)
	if err != nil {
		return statError(shown, err), nil
	}
	if st.IsDir() {
		return tools.Errorf("Path is a directory, not a file: %s. Use ListDir to list it.", shown), nil
	}
	if err := checkRegular(st); err != nil {
		return specialFileError(shown, "read", err), nil
	}
	_, hasOffset := params["offset"]
	_, hasLimit := params["limit"]
	if st.Size() > readWholeLimit && !hasOffset && !hasLimit {
		return tools.Errorf("%s is %s, over the %s limit for reading a whole file. Read it in parts with offset and limit (for example offset=1, limit=2000).",
			shown, tools.HumanBytes(st.Size()), tools.HumanBytes(readWholeLimit)), nil
	}
	// Stat above gives the friendly messages; the open checks again, since
	// the file may have been swapped for a FIFO in between.
	f, st, err := t.ws.OpenRegular(name)
	if err != nil {
		return openError(shown, "read", err), nil
	}
	defer f.Close()

	br := bufio.NewReaderSize(f, 64*1024)
	head, _ := br.Peek(binarySniffBytes)
	if isBinary(head) {
		t.ws.noteSeen(name, st)
		return tools.Text(fmt.Sprintf("%s is a binary file (%s, %s); its contents are not shown.",
			shown, http.DetectContentType(head), tools.HumanBytes(st.Size()))), nil
	}
	if st.Size() == 0 {
		t.ws.noteSeen(name, st)
		return tools.Text(fmt.Sprintf("%s is empty (0 bytes).", shown)), nil
	}
	res, err := readLines(ctx, br, shown, tools.Int(params, "offset", 1), tools.Int(params, "limit", 0), st.Size() <= readWholeLimit)
	if err == nil && !res.IsError {
		t.ws.noteSeen(name, st)
	}
	return res, err
}

// readLines writes cat -n style output from line offset, at most limit lines
// (0: no limit) and at most readAutoTruncate bytes of output. When
// countRest is set it keeps scanning to report the file's total line count.
func readLines(ctx context.Context, br *bufio.Reader, shown string, offset, limit int, countRest bool) (tools.Result, error) {
	var out strings.Builder
	lineNo, first, last := 0, 0, 0
	stopped := false // stopped early because of the byte budget
	eof := false
	for {
		if lineNo%4096 == 0 && ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A very long line: keep its start, skip the rest.
			rest := line
			line = append([]byte(nil), rest...)
			for errors.Is(err, bufio.ErrBufferFull) {
				var more []byte
				more, err = br.ReadSlice('\n')
				if len(line) < readMaxLineBytes+4 {
					line = append(line, more...)
				}
			}
		}
		if len(line) == 0 && err != nil {
			if err != io.EOF {
				return tools.Result{}, fmt.Errorf("read %s: %w", shown, err)
			}
			eof = true
			break
		}
		lineNo++
		inRange := lineNo >= offset && (limit == 0 || lineNo < offset+limit)
		if inRange && !stopped {
			text := strings.TrimRight(string(line), "\r\n")
			if len(text) > readMaxLineBytes {
				text = tools.CutUTF8(text, readMaxLineBytes) + fmt.Sprintf(" … [line cut at %d bytes]", readMaxLineBytes)
			}
			if !utf8.ValidString(text) {
				text = strings.ToValidUTF8(text, "\uFFFD")
			}
			entry := fmt.Sprintf("%6d\t%s\n", lineNo, text)
			if out.Len()+len(entry) > readAutoTruncate && first != 0 {
				stopped = true
			} else {
				out.WriteString(entry)
				if first == 0 {
					first = lineNo
				}
				last = lineNo
			}
		}
		if err == io.EOF {
			eof = true
			break
		}
		if !countRest && (stopped || (limit > 0 && lineNo >= offset+limit)) {
			break
		}
	}
	total := lineNo
	if first == 0 {
		return tools.Errorf("offset %d is past the end of %s, which has %d lines.", offset, shown, total), nil
	}
	switch {
	case stopped:
		fmt.Fprintf(&out, "\n[Output truncated at 128 KB: showed lines %d-%d%s. Continue with offset=%d (and a limit) to read further.]",
			first, last, ofTotal(total, countRest), last+1)
	case last < total || !eof:
		fmt.Fprintf(&out, "\n[Showed lines %d-%d%s. Continue with offset=%d to read further.]", first, last, ofTotal(total, countRest), last+1)
	}
	return tools.Result{Content: out.String(), Meta: map[string]any{"path": shown, "firstLine": first, "lastLine": last}}, nil
}

func ofTotal(total int, known bool) string {
	if !known {
		return ""
	}
	return fmt.Sprintf(" of %d", total)
}

// isBinary uses the heuristic git and ripgrep use: a NUL byte early in the
// file. Invalid UTF-8 alone is not enough (Latin-1 text is still text).
func isBinary(head []byte) bool {
	return bytes.IndexByte(head, 0) >= 0
}

// openError is statError for an open that may also meet a directory or a
// special file.
func openError(shown, doing string, err error) tools.Result {
	switch {
	case errors.Is(err, errIsDir):
		return tools.Errorf("Path is a directory, not a file: %s", shown)
	case errors.Is(err, ErrNotRegular):
		return specialFileError(shown, doing, err)
	}
	return statError(shown, err)
}

// statError turns a file-system error into a result the model can act on.
func statError(shown string, err error) tools.Result {
	switch {
	case errors.Is(err, ErrOutsideWorkspace), errors.Is(err, ErrWriteRefused):
		return tools.Errorf("%v", err)
	case errors.Is(err, fs.ErrNotExist):
		return tools.Errorf("File not found: %s", shown)
	case errors.Is(err, fs.ErrPermission):
		return tools.Errorf("Permission denied: %s", shown)
	}
	return tools.Errorf("Cannot access %s: %v", shown, err)
}
