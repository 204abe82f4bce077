package fs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEdit(t *testing.T) {
	t.Parallel()
	const src = "package main\n\nfunc main() {\n\tprintln(\"hi\")\n\tprintln(\"hi\")\n}\n"
	tests := []struct {
		name      string
		file      string // initial content of f.go
		args      map[string]any
		wantError string
		wantMsg   string
		want      string // content after
	}{
		{
			name: "unique replacement", file: src,
			args:    map[string]any{"old_string": "package main", "new_string": "package app"},
			wantMsg: "replaced 1 occurrence (first at line 1)", want: strings.Replace(src, "package main", "package app", 1),
		},
		{
			name: "not unique without replace_all", file: src,
			args:      map[string]any{"old_string": "println(\"hi\")", "new_string": "println(\"bye\")"},
			wantError: "old_string occurs 2 times in f.go (at lines 4, 5)",
		},
		{
			name: "replace_all counts", file: src,
			args:    map[string]any{"old_string": "println(\"hi\")", "new_string": "println(\"bye\")", "replace_all": true},
			wantMsg: "replaced 2 occurrences (first at line 4)", want: strings.ReplaceAll(src, "hi", "bye"),
		},
		{
			name: "replace_all as a string is coerced", file: src,
			args:    map[string]any{"old_string": "hi", "new_string": "yo", "replace_all": "true"},
			wantMsg: "replaced 2 occurrences", want: strings.ReplaceAll(src, "hi", "yo"),
		},
		{
			name: "absent", file: src,
			args:      map[string]any{"old_string": "func helper()", "new_string": "x"},
			wantError: "old_string was not found in f.go",
		},
		{
			name: "whitespace near miss is pointed out", file: src,
			args:      map[string]any{"old_string": "  println(\"hi\")\n  println(\"hi\")", "new_string": "x"},
			wantError: "different whitespace is at line 4",
		},
		{
			name: "identical strings", file: src,
			args:      map[string]any{"old_string": "main", "new_string": "main"},
			wantError: "identical",
		},
		{
			name: "empty old_string", file: src,
			args:      map[string]any{"old_string": "", "new_string": "x"},
			wantError: "old_string is empty",
		},
		{
			name: "CRLF file edited with LF text", file: "one\r\ntwo\r\nthree\r\n",
			args:    map[string]any{"old_string": "one\ntwo", "new_string": "1\n2"},
			wantMsg: "replaced 1 occurrence", want: "1\r\n2\r\nthree\r\n",
		},
		{
			name: "Japanese text", file: "タイトル: 古い\n本文\n",
			args:    map[string]any{"old_string": "古い", "new_string": "新しい🎉"},
			wantMsg: "replaced 1 occurrence", want: "タイトル: 新しい🎉\n本文\n",
		},
		{
			name: "deletion", file: "keep\ndrop\nkeep\n",
			args:    map[string]any{"old_string": "drop\n", "new_string": ""},
			wantMsg: "replaced 1 occurrence", want: "keep\nkeep\n",
		},
		{
			name: "binary file", file: "ab\x00cd",
			args:      map[string]any{"old_string": "ab", "new_string": "x"},
			wantError: "binary file",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws, dir := newTestWorkspace(t, map[string]string{"f.go": tc.file})
			tc.args["path"] = "f.go"
			args, _ := json.Marshal(tc.args)
			res := execTool(t, NewEdit(ws), string(args))
			got, _ := os.ReadFile(filepath.Join(dir, "f.go"))
			if tc.wantError != "" {
				if !res.IsError || !strings.Contains(res.Content, tc.wantError) {
					t.Fatalf("want error %q, got:\n%s", tc.wantError, res.Content)
				}
				if string(got) != tc.file {
					t.Errorf("a failed edit changed the file: %q", got)
				}
				return
			}
			if res.IsError || !strings.Contains(res.Content, tc.wantMsg) {
				t.Fatalf("want %q, got:\n%s", tc.wantMsg, res.Content)
			}
			if string(got) != tc.want {
				t.Errorf("file:\n%q\nwant:\n%q", got, tc.want)
			}
			if d, _ := res.Meta["diff"].(string); !strings.HasPrefix(d, "--- a/f.go") {
				t.Errorf("no diff in meta: %v", res.Meta)
			}
		})
	}
}

func TestEditMissingFile(t *testing.T) {
	t.Parallel()
	ws, _ := newTestWorkspace(t, nil)
	res := execTool(t, NewEdit(ws), `{"path":"nope.go","old_string":"a","new_string":"b"}`)
	if !res.IsError || !strings.Contains(res.Content, "File not found: nope.go. To create a new file, use Write.") {
		t.Errorf("got %s", res.Content)
	}
}

func TestEditShowsEditedLines(t *testing.T) {
	t.Parallel()
	ws, _ := newTestWorkspace(t, map[string]string{"f.txt": "1\n2\n3\n4\n5\n6\n7\n8\n9\n"})
	res := execTool(t, NewEdit(ws), `{"path":"f.txt","old_string":"5\n","new_string":"five\n"}`)
	want := "     2\t2\n     3\t3\n     4\t4\n     5\tfive\n     6\t6\n     7\t7\n     8\t8\n"
	if !strings.HasSuffix(res.Content, want) {
		t.Errorf("snippet:\n%s\nwant suffix:\n%s", res.Content, want)
	}
}
