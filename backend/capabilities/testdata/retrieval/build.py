#!/usr/bin/env python3
"""Builds the retrieval evaluation (catalogs.jsonl.gz, tasks.jsonl.gz) from
the public sources named in README.md, read from local git checkouts.

    python3 build.py --mirror /work/.mirror

Each source is read at the commit README.md names (git show COMMIT:PATH), so
the output is the same wherever it runs. Only what the ranker reads is kept:
server names and descriptions, tool names and descriptions, and each input
schema's top level (type, required, and each property's type, description,
enum and item type). Labels are the benchmarks' own; nothing is labelled
here. Each task's split is fixed by a hash of its id (see split()).
"""
import argparse
import gzip
import hashlib
import json
import os
import re
import subprocess

SOURCES = {
    "live": ("icip-cas+LiveMCPBench", "a928e57d1ee7a25579b9a7036030faffff72d15b"),
    "mcpbench": ("xuhaike+mcp-bench", "d716b6265accf6185639e43b9f91e7aea6bb204a"),
    "msc": ("snooow1029+ETOM", "3280849df74867ddfbd825d04682bf866c96f8ec"),
    "github": ("github+github-mcp-server", "64a49f34d076b6f5917dae1424521d43c7bcae84"),
    "notion": ("makenotion+notion-mcp-server", "1d38420769c8a1fe2d583ff1e7d2d108d4eb0b30"),
}


def git_show(mirror, src, path):
    repo, commit = SOURCES[src]
    return subprocess.run(["git", "-C", os.path.join(mirror, repo, "repo"), "show", commit + ":" + path],
                          check=True, capture_output=True).stdout


def git_ls(mirror, src, under):
    repo, commit = SOURCES[src]
    out = subprocess.run(["git", "-C", os.path.join(mirror, repo, "repo"), "ls-tree", "-r", "--name-only", commit, under],
                         check=True, capture_output=True, text=True).stdout
    return sorted(out.split())


def load(mirror, src, path):
    return json.loads(git_show(mirror, src, path))


def split(task_id):
    """tune or report, fixed by the first byte of sha256(id) before any tuning."""
    return "tune" if hashlib.sha256(task_id.encode()).digest()[0] < 128 else "report"


def strip_schema(s):
    """The top level of an input schema, as the ranker and the checks read it."""
    if not isinstance(s, dict):
        return {"type": "object"}
    out = {}
    if "type" in s:
        out["type"] = s["type"]
    props = s.get("properties")
    if isinstance(props, dict):
        keep = {}
        for name, p in props.items():
            q = {}
            if isinstance(p, dict):
                for k in ("type", "description", "enum"):
                    if k in p:
                        q[k] = p[k]
                if isinstance(p.get("items"), dict) and "type" in p["items"]:
                    q["items"] = {"type": p["items"]["type"]}
            keep[name] = q
        out["properties"] = keep
    if isinstance(s.get("required"), list):
        out["required"] = s["required"]
    return out


def slug(name):
    """A short config-style server key from a display name."""
    s = name.lower()
    s = re.sub(r"\(.*?\)", " ", s)
    s = re.sub(r"\bmcp\b|\bserver\b|\bmodel context protocol\b", " ", s)
    s = re.sub(r"[^a-z0-9]+", "-", s).strip("-")
    return s[:32].strip("-") or hashlib.sha256(name.encode()).hexdigest()[:8]


# descMax bounds a kept description: the index reads less than that.
DESC_MAX = 2000


def tool(name, desc, schema):
    return {"name": name, "description": (desc or "").strip()[:DESC_MAX], "schema": strip_schema(schema)}


def live(mirror, catalogs, tasks):
    servers = load(mirror, "live", "tools/LiveMCPTool/tools.json")
    byname = {}
    for s in servers:
        for key, v in s["tools"].items():
            ts = [tool(t["name"], t.get("description"), t.get("inputSchema")) for t in v["tools"]]
            catalogs.append({"src": "live", "server": s["name"], "key": key, "about": s.get("description", ""), "tools": ts})
            for t in ts:
                byname.setdefault(t["name"], []).append(s["name"] + "::" + t["name"])
    dropped = []
    for t in load(mirror, "live", "annotated_data/all_annotations.json"):
        expect = []
        for line in t["Annotator Metadata"]["Tools"].splitlines():
            name = re.sub(r"^\s*\d+\.\s*", "", line).strip()
            if not name:
                continue
            if name not in byname:
                dropped.append(name)  # the label names a tool no server lists
                continue
            if byname[name] not in expect:
                expect.append(byname[name])  # any server's tool of that name answers
        tid = "live/" + t["task_id"]
        if expect:
            tasks.append({"id": tid, "src": "live", "kind": "task", "text": t["Question"].strip(), "expect": expect, "split": split(tid)})
    return dropped


def mcpbench(mirror, catalogs, tasks):
    info = load(mirror, "mcpbench", "mcp_servers_info.json")["servers"]
    names = {}
    for sname, s in info.items():
        ts = [tool(t["name"], t.get("description"), t.get("input_schema")) for t in s["tools"].values()]
        catalogs.append({"src": "mcpbench", "server": sname, "key": slug(sname), "about": s.get("description", ""), "tools": ts})
        names[sname] = [t["name"] for t in ts]
    for f in ("single", "multi_2server", "multi_3server"):
        d = load(mirror, "mcpbench", "tasks/mcpbench_tasks_%s_runner_format.json" % f)
        for st in d["server_tasks"]:
            servers = st.get("servers") or [st["server_name"]]
            for t in st["tasks"]:
                # The benchmark's dependency analysis names the tools each
                # task's plan calls; those are its labels.
                plan = t["dependency_analysis"]
                expect = []
                for s in servers:
                    for n in names.get(s, []):
                        if re.search(r"(?<![A-Za-z0-9_])" + re.escape(n) + r"(?![A-Za-z0-9_])", plan):
                            expect.append([s + "::" + n])
                tid = "mcpbench/" + t["task_id"]
                if expect:
                    tasks.append({"id": tid, "src": "mcpbench", "kind": "task", "text": t["fuzzy_description"].strip(),
                                  "expect": expect, "split": split(tid)})


def msc(mirror, catalogs, tasks):
    reg = load(mirror, "msc", "data/mcp_registry.json")
    for s in reg["servers"]:
        ts = [tool(t["tool_name"], t.get("tool_description"), t.get("input_schema")) for t in s["tools"]]
        about = s.get("server_description") or s.get("server_summary") or ""
        catalogs.append({"src": "msc", "server": s["server_name"], "key": slug(s["server_name"]), "about": about, "tools": ts})
    for level in (1, 2, 3, 4):
        for q in load(mirror, "msc", "data/queries/level_%d.json" % level):
            gt = q["ground_truth_tools"]
            if level == 1:
                expect = [[g["tool_id"] for g in gt]]
            elif level == 2:
                # Level 2 lists equal-function sets for one step: any of
                # their tools answers it.
                union = []
                for alt in gt:
                    for g in alt:
                        if g["tool_id"] not in union:
                            union.append(g["tool_id"])
                expect = [union]
            elif level == 3:
                expect = [[g["tool_id"]] for g in gt]
            else:
                expect = [[g["tool_id"] for g in alt] for alt in gt]
            tid = "msc/L%d/%d" % (level, q["query_id"])
            kind = "query" if level <= 2 else "task"
            tasks.append({"id": tid, "src": "msc", "level": level, "kind": kind, "text": q["query"].strip(),
                          "expect": expect, "split": split(tid)})


def github(mirror, catalogs):
    ts = []
    for path in git_ls(mirror, "github", "pkg/github/__toolsnaps__"):
        t = json.loads(git_show(mirror, "github", path))
        ts.append(tool(t["name"], t.get("description"), t.get("inputSchema")))
    catalogs.append({"src": "github", "server": "GitHub MCP Server", "key": "github",
                     "about": "GitHub's official MCP Server", "tools": ts})


def notion(mirror, catalogs):
    spec = load(mirror, "notion", "scripts/notion-openapi.json")
    ts = []
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            if not isinstance(op, dict) or "operationId" not in op:
                continue
            props, required = {}, []
            for p in op.get("parameters", []):
                if "name" not in p:
                    continue
                props[p["name"]] = {"type": p.get("schema", {}).get("type", "string"), "description": p.get("description", "")}
                if p.get("required"):
                    required.append(p["name"])
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
            for n, p in body.get("properties", {}).items():
                props[n] = p
            required += body.get("required", [])
            desc = "Notion | " + op.get("summary", "")
            if op.get("description"):
                desc += "\n" + op["description"]
            ts.append(tool("API-" + op["operationId"], desc, {"type": "object", "properties": props, "required": required}))
    catalogs.append({"src": "notion", "server": "Notion MCP Server", "key": "notion",
                     "about": "Official MCP server for the Notion API", "tools": ts})


def write(path, rows):
    with open(path, "wb") as f:
        # mtime 0 keeps the gzip bytes the same from run to run.
        with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, compresslevel=9) as z:
            for r in rows:
                z.write((json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n").encode())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirror", default="/work/.mirror")
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    a = ap.parse_args()
    catalogs, tasks = [], []
    dropped = live(a.mirror, catalogs, tasks)
    mcpbench(a.mirror, catalogs, tasks)
    msc(a.mirror, catalogs, tasks)
    github(a.mirror, catalogs)
    notion(a.mirror, catalogs)
    write(os.path.join(a.out, "catalogs.jsonl.gz"), catalogs)
    write(os.path.join(a.out, "tasks.jsonl.gz"), tasks)
    for src in ("live", "mcpbench", "msc", "github", "notion"):
        n = sum(len(c["tools"]) for c in catalogs if c["src"] == src)
        k = [t for t in tasks if t["src"] == src]
        print("%-9s %3d servers %5d tools %5d tasks (%d report)" % (
            src, sum(1 for c in catalogs if c["src"] == src), n, len(k), sum(1 for t in k if t["split"] == "report")))
    print("LiveMCPBench labels naming no listed tool (dropped):", ", ".join(dropped))


if __name__ == "__main__":
    main()
