#!/usr/bin/python3
"""Reference chat-template renderer for the C++ engine's tests: Python Jinja2 configured exactly as Hugging Face
transformers' apply_chat_template configures it (ImmutableSandboxedEnvironment with trim_blocks, lstrip_blocks,
the loopcontrols extension and the {% generation %} tag; tojson = json.dumps(ensure_ascii=False, ...);
globals raise_exception and strftime_now), with strftime_now pinned to a given date (SPEC §1.2).

Protocol: JSON lines on stdin, one JSON line answered on stdout for each:
  {"op": "define", "name": N, "source": S}                       -> {"ok": true} or {"ok": false, "type", "message"}
  {"op": "render", "template": N, "variables": {...}, "today": "YYYY-MM-DD"}
                                                                  -> {"ok": true, "rendered": R} or an error
With --expect, reads test cases {"name", "template", "vars", ...} instead and writes each back with "expect":
  {"ok": true, "rendered": R} or {"ok": false, "phase": "compile"|"render", "type": T, "message": M}
(how tests/rows/template/semantics_cases.jsonl got its expected values).
Run with /usr/bin/python3 (Debian's python3-jinja2).
"""
import datetime
import json
import sys

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension, loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment


class GenerationTag(Extension):
    """transformers' AssistantTracker tag: {% generation %}body{% endgeneration %} renders body (tracker off)."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return nodes.CallBlock(self.call_method("_render_body"), [], [], body).set_lineno(lineno)

    def _render_body(self, caller):
        return caller()


_envs = {}


def environment(today):
    env = _envs.get(today)
    if env is not None:
        return env

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def strftime_now(fmt):
        return datetime.datetime.strptime(today, "%Y-%m-%d").strftime(fmt)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[GenerationTag, loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    _envs[today] = env
    return env


def error(e):
    return {"ok": False, "type": type(e).__name__, "message": str(e)}


def expect_mode():
    for line in sys.stdin:
        if not line.strip():
            continue
        case = json.loads(line)
        try:
            tmpl = environment(case.get("today", "2026-01-01")).from_string(case["template"])
        except Exception as e:
            case["expect"] = dict(error(e), phase="compile")
        else:
            try:
                case["expect"] = {"ok": True, "rendered": tmpl.render(**case["vars"])}
            except Exception as e:
                case["expect"] = dict(error(e), phase="render")
        sys.stdout.write(json.dumps(case, ensure_ascii=False) + "\n")


def main():
    if "--expect" in sys.argv[1:]:
        expect_mode()
        return
    sources = {}
    compiled = {}
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            if req["op"] == "define":
                sources[req["name"]] = req["source"]
                compiled = {k: v for k, v in compiled.items() if k[0] != req["name"]}
                environment("2026-01-01").from_string(req["source"])
                out = {"ok": True}
            else:
                today = req.get("today", "2026-01-01")
                key = (req["template"], today)
                tmpl = compiled.get(key)
                if tmpl is None:
                    tmpl = environment(today).from_string(sources[req["template"]])
                    compiled[key] = tmpl
                out = {"ok": True, "rendered": tmpl.render(**req["variables"])}
        except RecursionError as e:
            out = error(e)
        except Exception as e:  # every failure is an answer, the oracle keeps going
            out = error(e)
        sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
