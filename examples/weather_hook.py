#!/usr/bin/env python3
"""A PicoClaw stdio hook that provides a `get_weather` plugin tool.

It speaks PicoClaw's process-hook protocol as PicoClaw's source implements it, so it runs the same
under PicoClaw directly (hooks.processes.<name>.command = ["python3", "weather_hook.py"]) and behind
hookgate as a `stdio` backend:

- hook.before_llm injects the tool definition. PicoClaw replaces the request object, never merges
  it, so the whole request is echoed back with the tool appended.
- hook.before_tool answers get_weather itself with `respond` and a ToolResult.
- Every other call continues; notifications (no id) are never answered; logs go to stderr only.
"""
from __future__ import annotations

import json
import sys
from typing import Any

WEATHER = {
    "berlin": "18 C, light rain",
    "beijing": "15 C, sunny",
    "shanghai": "18 C, cloudy",
    "paris": "21 C, clear",
}

TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "City name"}},
            "required": ["city"],
        },
    },
}


def log(msg: str) -> None:
    sys.stderr.write(f"weather_hook: {msg}\n")
    sys.stderr.flush()


def before_llm(params: dict) -> dict:
    tools = list(params.get("tools") or [])
    if any((t.get("function") or {}).get("name") == "get_weather" for t in tools):
        return {"action": "continue"}
    request = dict(params)  # echo everything: meta, context, model, messages, options, ...
    request["tools"] = tools + [TOOL]
    return {"action": "modify", "request": request}


def before_tool(params: dict) -> dict:
    if params.get("tool") != "get_weather":
        return {"action": "continue"}
    city = str((params.get("arguments") or {}).get("city", "")).strip()
    weather = WEATHER.get(city.lower())
    if weather is None:
        result = {"for_llm": f"No weather data for {city or 'an empty city'}", "silent": False, "is_error": True}
    else:
        result = {"for_llm": f"{city}: {weather}", "silent": False, "is_error": False}
    return {"action": "respond", "result": result}


def handle(method: str, params: dict) -> Any:
    if method == "hook.hello":
        return {"ok": True, "name": "weather"}
    if method == "hook.before_llm":
        return before_llm(params)
    if method == "hook.before_tool":
        return before_tool(params)
    if method in ("hook.after_llm", "hook.after_tool"):
        return {"action": "continue"}
    if method == "hook.approve_tool":
        # Not this hook's business; an explicit answer, never an empty one.
        return {"approved": True}
    raise KeyError(method)


def main() -> int:
    for raw in sys.stdin:
        line = raw.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            log("ignored a line that is not JSON")
            continue
        msg_id = msg.get("id")
        if not isinstance(msg_id, int) or msg_id <= 0:
            continue  # a notification (hook.runtime_event): never answered
        try:
            reply = {"jsonrpc": "2.0", "id": msg_id, "result": handle(str(msg.get("method", "")), msg.get("params") or {})}
        except KeyError as exc:
            reply = {"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32601, "message": f"method not found: {exc}"}}
        except Exception as exc:  # never die on one bad call
            reply = {"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32000, "message": f"hook error: {exc}"}}
        sys.stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:
        raise SystemExit(0)
