package usertools

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"tinyelf/backend/tools"
	"tinyelf/internal/testutil"
)

// benchRegistry registers an agent's user tools in a registry, as a session
// does.
func benchRegistry(b *testing.B, s *Service) *tools.Registry {
	reg := tools.NewRegistry()
	for _, t := range s.Tools(context.Background(), "default") {
		if err := reg.Register(t); err != nil {
			b.Fatal(err)
		}
	}
	return reg
}

// BenchmarkCall measures one call of a user tool whose own work is nothing,
// through the registry's pipeline: everything it costs is overhead (process
// start, the Python host, JSON both ways, coercion, validation).
func BenchmarkCall(b *testing.B) {
	data := b.TempDir()
	dir := personalDir(data, "default")
	testutil.WriteFile(b, filepath.Join(dir, "noop.py"), pyTool("noop", "run", `return {"echo": args.get("text")}`, `{"run": {"read_only": True}}`), 0)
	cat, err := exec.LookPath("cat")
	if err != nil {
		b.Skip("no cat")
	}
	// cat echoes the request: a native executable that does nothing else.
	testutil.WriteFile(b, filepath.Join(dir, "echo.tool.json"), `{"command": ["`+cat+`"], "schemas": [{"name": "echo_run", "description": "x", "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}}}]}`, 0)
	testutil.WriteFile(b, filepath.Join(dir, "shecho.sh"), "#!/bin/sh\nexec cat\n", 0o755)
	testutil.WriteFile(b, filepath.Join(dir, "shecho.tool.json"), `{"command": ["./shecho.sh"], "schemas": [{"name": "shecho_run", "description": "x", "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}}}]}`, 0)
	s := newTestService(b, data)
	if rep := s.Load(context.Background()); len(rep.Loaded) != 3 {
		b.Fatalf("loaded %+v", rep)
	}
	perCall := newTestService(b, data, func(o *Options) { o.ProcessPerCall = true })
	args := json.RawMessage(`{"text": "hello"}`)
	for _, c := range []struct {
		bench, tool string
		svc         *Service
	}{
		{"python_forked", "noop_run", s},
		{"python_process_per_call", "noop_run", perCall},
		{"executable_cat", "echo_run", s},
		{"executable_sh", "shecho_run", s},
	} {
		reg := benchRegistry(b, c.svc)
		b.Run(c.bench, func(b *testing.B) {
			// One call first, so the fork server is up.
			if res := reg.Execute(context.Background(), "b", c.tool, args); res.IsError {
				b.Fatal(res.Content)
			}
			zygote := c.svc.forkPID()
			cpu0 := cpuTime(zygote)
			for b.Loop() {
				if res := reg.Execute(context.Background(), "b", c.tool, args); res.IsError {
					b.Fatal(res.Content)
				}
			}
			if cpu := cpuTime(zygote) - cpu0; cpu > 0 {
				b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
			}
		})
	}
	// The interpreter alone, with the host's flags, for comparison: what a
	// call costs beyond it is the host, JSON and the pipeline.
	python, err := s.py.interpreter(s.toolEnv("", nil, ""))
	if err != nil {
		b.Skip(err)
	}
	b.Run("python_start_only", func(b *testing.B) {
		cpu0 := cpuTime(0)
		defer func() {
			if cpu := cpuTime(0) - cpu0; cpu > 0 {
				b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
			}
		}()
		for b.Loop() {
			if err := exec.Command(python, "-E", "-X", "utf8", "-c", "pass").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDiscovery measures the start-up scan of 200 user tools (the
// goal is under 500 ms).
func BenchmarkDiscovery(b *testing.B) {
	for _, kind := range []Kind{KindPython, KindExecutable} {
		b.Run(fmt.Sprintf("200_%s", kind), func(b *testing.B) {
			data := b.TempDir()
			for i := range 200 {
				name := fmt.Sprintf("tool_%03d", i)
				if kind == KindPython {
					testutil.WriteFile(b, filepath.Join(commonDir(data), name+".py"), pyTool(name, "run", `return 1`, `{"run": {"expected_seconds": 5}}`), 0)
				} else {
					testutil.WriteFile(b, filepath.Join(commonDir(data), name+".tool.json"), `{"command": ["/bin/cat"], "schemas": [{"name": "`+name+`_run", "description": "x", "input_schema": {"type": "object", "properties": {"a": {"type": "string"}}}}]}`, 0)
				}
			}
			s := newTestService(b, data)
			cpu0 := cpuTime(0)
			for b.Loop() {
				if rep := s.Refresh(context.Background(), "default"); len(rep.Loaded) != 200 {
					b.Fatalf("loaded %d: %+v", len(rep.Loaded), rep.Errors)
				}
			}
			if cpu := cpuTime(0) - cpu0; cpu > 0 {
				b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
			}
		})
	}
}

// workerLoop is a kept-worker prototype, for comparison only: one Python
// process that imports the module once and answers calls line by line.
// TinyElf does not ship it (see the package documentation for why).
const workerLoop = `
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("noop", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
for line in sys.stdin:
    req = json.loads(line)
    sys.stdout.write(json.dumps({"ok": True, "result": mod.dispatch(req["schema"], req["args"])}) + "\n")
    sys.stdout.flush()
`

// BenchmarkKeptWorkerPrototype measures what one call would cost through a
// kept Python worker: a JSON line to the process and one back.
func BenchmarkKeptWorkerPrototype(b *testing.B) {
	data := b.TempDir()
	mod := filepath.Join(data, "noop.py")
	testutil.WriteFile(b, mod, pyTool("noop", "run", `return {"echo": args.get("text")}`, ""), 0)
	python := needPython(b)
	cmd := exec.Command(python, "-E", "-c", workerLoop, mod)
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { in.Close(); _ = cmd.Wait() }()
	rd := bufio.NewReader(outPipe)
	req := []byte(`{"schema": "noop_run", "args": {"text": "hello"}}` + "\n")
	for b.Loop() {
		if _, err := in.Write(req); err != nil {
			b.Fatal(err)
		}
		line, err := rd.ReadBytes('\n')
		if err != nil || !json.Valid(line) {
			b.Fatalf("%q %v", line, err)
		}
	}
}
