"""Read `cargo test --no-run --message-format=json` on stdin; print one line
per test binary: `package/target directory executable`, where target is
`lib`, `bin:NAME` or the test's name, and directory is the package's (cargo
runs a test binary from there)."""

import json
import os
import sys

for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
        continue
    if not msg.get("profile", {}).get("test"):
        continue
    target = msg["target"]
    kinds = target["kind"]
    # package_id: "path+file:///dir#name@version" or "...#version" (name = dir's last part).
    pkg_id = msg["package_id"]
    url, _, frag = pkg_id.partition("#")
    directory = url.split("file://", 1)[-1]
    package = frag.split("@")[0] if "@" in frag else os.path.basename(directory)
    if "lib" in kinds or "rlib" in kinds:
        name = "lib"
    elif "bin" in kinds:
        name = "bin:" + target["name"]
    else:
        name = target["name"]
    print(f"{package}/{name} {directory} {msg['executable']}")
