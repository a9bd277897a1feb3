"""Every payload of a workflow's history as `temporal workflow show --output json` prints it: a
payload's metadata values and data are base64 there, so a clear prompt shows only once decoded.

As a module (scripts/webui/operator_journey.py): payloads(history) gives (path, encoding, data)
for each payload, data decoded to text. As a script (scripts/contract-tier.sh):
    history_payloads.py HISTORY.json TEXT
prints how many payloads hold TEXT, read as they are or decoded.
"""

import base64
import binascii
import json
import sys


def _decoded(value):
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, TypeError, ValueError):
        return b""


def _walk(node, path):
    if isinstance(node, dict):
        if "metadata" in node and "data" in node:
            yield path, node
        for key, value in node.items():
            yield from _walk(value, path + "/" + key)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value, path)


def payloads(history):
    """(path, encoding, data as text) of every payload with an encoding in the parsed history."""
    return [
        (path, _decoded(node["metadata"]["encoding"]).decode("utf-8", "replace"),
         _decoded(node["data"]).decode("utf-8", "replace"))
        for path, node in _walk(history, "")
        if "encoding" in node["metadata"]
    ]


def holding(history, text):
    """How many payloads hold text, as they are printed or decoded."""
    needle = text.encode()
    return sum(1 for _, node in _walk(history, "")
               if needle in _decoded(node["data"]) or needle in json.dumps(node).encode())


if __name__ == "__main__":
    with open(sys.argv[1]) as history:
        print(holding(json.load(history), sys.argv[2]))
