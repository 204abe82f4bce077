package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"tinyelf/backend/config"
	"tinyelf/backend/engine"
	"tinyelf/backend/tools"
)

const toolUsage = `Usage:
  tinyelf tool list [--workspace DIR] [--mode MODE] [--output text|json]
  tinyelf tool NAME [--args JSON] [--workspace DIR] [--mode MODE] [--output text|json]

Runs one tool through the same pipeline the agent uses (coercion, validation,
the shell deny list, truncation) and prints its result.

  --args JSON       the tool's arguments as a JSON object ("-" reads stdin)
  --workspace DIR   the workspace folder (default: the current folder)
  --mode MODE       plan | default | acceptEdits | auto (default: default);
                    plan offers only read-only tools
  --unrestricted    let FileSystem tools reach outside the workspace
  --output FORMAT   text (the result) or json (the whole call result)

Running a tool here is your explicit approval of that one call, so the tool
runs without asking; deny rules and the shell deny list still refuse, and
warnings are printed to stderr. Exit status: 0 success, 1 the tool returned an
error result, 2 usage error.
`

// runTool implements `tinyelf tool`.
func runTool(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, toolUsage)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	name := args[0]
	fs := flag.NewFlagSet("tinyelf tool", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	argsJSON := fs.String("args", "{}", "")
	workspace := fs.String("workspace", ".", "")
	modeName := fs.String("mode", string(engine.ModeDefault), "")
	unrestricted := fs.Bool("unrestricted", false, "")
	output := fs.String("output", "text", "")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError(stderr, err.Error())
	}
	if fs.NArg() > 0 {
		return usageError(stderr, fmt.Sprintf("unexpected argument %q (pass tool arguments with --args JSON)", fs.Arg(0)))
	}
	mode, err := engine.ParseMode(*modeName)
	if err != nil {
		return usageError(stderr, err.Error())
	}
	if *output != "text" && *output != "json" {
		return usageError(stderr, fmt.Sprintf("unknown output format %q (want text or json)", *output))
	}
	dir, err := config.DataDir()
	if err != nil {
		return usageError(stderr, err.Error())
	}
	settings, err := config.OpenStore(filepath.Join(dir, config.SettingsFile))
	if err != nil {
		return usageError(stderr, err.Error())
	}
	sess, err := engine.BuildRegistry(engine.BuildOptions{
		Workspace: *workspace, Mode: mode, Unrestricted: *unrestricted,
		ExecTimeout: settings.Get().ExecTimeout(),
		Web:         engine.NewWebTools(settings.Get(), os.Getenv, nil, nil, nil),
		Middleware:  []tools.Middleware{engine.DirectGate(settings)},
	})
	if err != nil {
		return usageError(stderr, err.Error())
	}
	defer sess.Close()

	if name == "list" {
		return listTools(sess.Registry, *output, stdout)
	}
	raw, err := readArgs(*argsJSON)
	if err != nil {
		return usageError(stderr, err.Error())
	}
	if !sess.Registry.Has(name) {
		msg := fmt.Sprintf("unknown tool %q; available: %s", name, strings.Join(sess.Registry.Names(), ", "))
		if mode == engine.ModePlan {
			msg = fmt.Sprintf("tool %q is not available in plan mode, which offers only read-only tools: %s", name, strings.Join(sess.Registry.Names(), ", "))
		}
		return usageError(stderr, msg)
	}
	if tool, ok := sess.Registry.Get(name); ok {
		if insp, ok := tool.(tools.Inspector); ok {
			var params map[string]any
			if json.Unmarshal(raw, &params) == nil {
				for _, w := range insp.Warnings(params) {
					fmt.Fprintf(stderr, "warning: %s\n", w)
				}
			}
		}
	}

	res := sess.Registry.Execute(ctx, "cli", name, raw)
	if *output == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			fmt.Fprintf(stderr, "tinyelf tool: %v\n", err)
			return exitError
		}
	} else {
		fmt.Fprint(stdout, res.Content)
		if !strings.HasSuffix(res.Content, "\n") {
			fmt.Fprintln(stdout)
		}
	}
	if res.IsError {
		return exitError
	}
	return exitOK
}

// readArgs returns the --args JSON, reading stdin for "-", and checks that
// it is a JSON object.
func readArgs(s string) (json.RawMessage, error) {
	if s == "-" {
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return nil, fmt.Errorf("read --args from stdin: %w", err)
		}
		s = string(b)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(s), &obj); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return nil, fmt.Errorf("--args is not valid JSON: %v (at byte %d)", err, syn.Offset)
		}
		return nil, fmt.Errorf("--args must be a JSON object like '{\"path\":\"README.md\"}': %v", err)
	}
	return json.RawMessage(s), nil
}

func listTools(reg *tools.Registry, output string, stdout io.Writer) int {
	infos := reg.Infos()
	if output == "json" {
		type row struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Safe        bool            `json:"safe"`
			ReadOnly    bool            `json:"readOnly"`
			Source      tools.Source    `json:"source"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		rows := make([]row, len(infos))
		for i, in := range infos {
			rows[i] = row{in.Name, in.Description, in.Safe, in.ReadOnly, in.Source, in.Parameters}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			return exitError
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSENSITIVITY\tACCESS\tSOURCE\tDESCRIPTION")
	for _, in := range infos {
		sens, access := "asks", "writes"
		if in.Safe {
			sens = "safe"
		}
		if in.ReadOnly {
			access = "read-only"
		}
		desc, _, _ := strings.Cut(in.Description, "\n")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", in.Name, sens, access, in.Source, tools.CutUTF8(desc, 90))
	}
	tw.Flush()
	return exitOK
}

func usageError(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "tinyelf tool: %s\nRun 'tinyelf tool --help' for usage.\n", msg)
	return exitUsage
}
